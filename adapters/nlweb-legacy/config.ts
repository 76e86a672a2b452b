import { z } from 'zod';

/**
 * The deployed generations of the older NLWeb REST server (interop.md "the older REST API"):
 * `A` mid-2025, reads only the query string; `B` mid-2025, also reads a POST JSON body;
 * `C` late-2025, `begin-/end-nlweb-response` framing and `content` arrays.
 * `auto` speaks the A/B dialect until the first reply says which one answered.
 */
export const GENERATIONS = ['auto', 'A', 'B', 'C'] as const;
export type Generation = (typeof GENERATIONS)[number];
/** A generation once known (`auto` resolved). */
export type KnownGeneration = Exclude<Generation, 'auto'>;

/** Kind `nlweb-legacy`: an older NLWeb REST server reached through `/ask` or its legacy `/mcp`. */
export const NlwebLegacyConfigSchema = z
  .strictObject({
    /** Base URL of the legacy server; the adapter calls `${url}/ask`, `${url}/mcp`, `${url}/sites`. */
    url: z
      .url({ protocol: /^https?$/, error: 'url must be an http(s) URL' })
      // A pasted endpoint (`…/ask`, `…/mcp`) is taken as its base, so both spellings work.
      .transform((u) => u.replace(/\/+$/, '').replace(/\/(ask|mcp)$/, '')),
    /** Which server generation answers; `auto` detects it from the first reply. */
    generation: z.enum(GENERATIONS).default('auto'),
    /** `ask`: the REST `/ask` endpoint; `mcp`: the server's legacy (pre-standard) `/mcp` endpoint. */
    transport: z.enum(['ask', 'mcp']).default('ask'),
    /** `/ask` request method: GET with a query string (read by every generation) or POST JSON (B, C). */
    method: z.enum(['GET', 'POST']).default('GET'),
    /** Ask the upstream to stream (`streaming=true`); the gateway's own leg, not the client's wish. */
    streaming: z.boolean().default(true),
    /** Headers sent on every upstream call: the gateway's own credentials to this server. */
    headers: z.record(z.string(), z.string()).optional(),
    /** The server's sites, when it has no working `GET /sites`; skips the lookup. */
    sites: z.array(z.string().min(1)).optional(),
    /** Previous queries sent as `prev` (the oldest are dropped: they travel in a URL). */
    maxPrev: z.number().int().positive().max(50).default(10),
  })
  .refine((c) => !(c.generation === 'A' && c.method === 'POST'), {
    message: 'generation A reads only the query string: use method GET',
    path: ['method'],
  });

/** The validated kind-specific config of an `nlweb-legacy` agent. */
export type NlwebLegacyConfig = z.infer<typeof NlwebLegacyConfigSchema>;
