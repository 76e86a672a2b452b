import { z } from 'zod';

/**
 * Kind `nlip`: an upstream NLIP agent over HTTP (ECMA-430 + its HTTP binding: `POST {url}/nlip/`).
 * Strict: an unknown field is a config error, so a typo never silently turns a feature off.
 */
export const NlipAdapterConfigSchema = z.strictObject({
  /** Base URL of the NLIP server; the adapter posts to `${url}/nlip/`. A trailing slash is dropped. */
  url: z
    .url({ protocol: /^https?$/, error: 'url must be an http(s) URL' })
    .transform((u) => u.replace(/\/+$/, '')),
  /** Headers sent on every upstream call (the gateway's own credentials to the upstream). */
  headers: z.record(z.string(), z.string()).optional(),
  /** A label (ECMA-430 5.2.1) put on the question the gateway sends, e.g. a chat role such as `user`. */
  label: z.string().min(1).optional(),
});

/** The validated kind-specific config of an `nlip` agent. */
export type NlipAdapterConfig = z.infer<typeof NlipAdapterConfigSchema>;
