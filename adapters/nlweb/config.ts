import { z } from 'zod';

/** The NLWeb versions this adapter can speak upstream (what goes into the request `meta`). */
export const UPSTREAM_VERSIONS = ['0.55', '0.54'] as const;

/**
 * Kind `nlweb`: an upstream NLWeb v0.55 (or v0.54) agent over HTTP (spec 7.1: `POST /ask`, `POST /await`).
 * Strict: an unknown field is a config error, so a typo never silently turns a feature off.
 */
export const NlwebAdapterConfigSchema = z.strictObject({
  /** Base URL; the adapter posts to `${url}/ask` and `${url}/await`. A trailing slash is dropped. */
  url: z
    .url({ protocol: /^https?$/, error: 'url must be an http(s) URL' })
    .transform((u) => u.replace(/\/+$/, '')),
  /** Ask the upstream for SSE (`Accept: text/event-stream` + `prefer.streaming: true`). */
  streaming: z.boolean().default(true),
  /** Headers sent on every upstream call (the gateway's own credentials to the upstream). */
  headers: z.record(z.string(), z.string()).optional(),
  /** The protocol version put into the upstream request's `meta`. */
  version: z.enum(UPSTREAM_VERSIONS).default('0.55'),
  /** How the upstream states result scores: 0-100 (the reference servers) or 0-1; mapped to the gateway's 0-100. */
  scoreScale: z.enum(['0-100', '0-1']).default('0-100'),
});

/** The validated kind-specific config of an `nlweb` agent. */
export type NlwebAdapterConfig = z.infer<typeof NlwebAdapterConfigSchema>;
