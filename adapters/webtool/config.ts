import { z } from 'zod';
import { checkTemplate } from './template.ts';

/** A version as a path segment: semantic versions and the looser strings some webtools use. */
const Version = z.string().min(1).max(128).regex(/^[^/?#\s]+$/, 'must be a version such as 1.0.0');

/** The fields of a `kind: webtool` agent entry (besides the common ones). */
export const WebtoolConfigSchema = z.strictObject({
  /** The webtool's URL as its provider publishes it: GET = metadata, POST = execution. */
  url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }),
  /** Pin this version ("lock-in"); by default the version first seen is pinned. */
  version: Version.optional(),
  /** Pin the exact metadata too: the SHA-256 (hex) the gateway logs when it first pins a version. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits').optional(),
  /** Credentials and defaults sent as `config` (merged over the webtool's `defaultConfig`). Never from a client. */
  config: z.record(z.string(), z.unknown()).optional(),
  /** How an NLWeb `ask` maps to one action; without it the agent offers only its actions as tools. */
  ask: z
    .strictObject({
      action: z.string().min(1),
      request: z.record(z.string(), z.unknown()).superRefine((t, ctx) => {
        const problem = checkTemplate(t);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    })
    .optional(),
  /** Extra headers for every upstream request (e.g. an API key). */
  headers: z.record(z.string(), z.string()).optional(),
  /** How often the pinned metadata is fetched again and compared (ms); 0 = before every call. */
  recheckMs: z.number().int().nonnegative().optional(),
});
export type WebtoolConfig = z.infer<typeof WebtoolConfigSchema>;
