import { z } from 'zod';

/** Results returned when the client does not ask for a number (`num_results`/`max_results`). */
export const DEFAULT_MAX_RESULTS = 10;

/** The most results one ask can return, whatever the client asks for (the catalog is in memory, the wire is not). */
export const RESULT_CAP = 100;

/**
 * The `catalog` kind's own config fields (design.md "An adapter": a schema.org file served as an agent).
 * Common fields (name, description, timeouts, ...) are validated by the gateway's config loader.
 */
export const CatalogConfigSchema = z.strictObject({
  /** The catalog file: JSON (array, ItemList or @graph), JSONL, or RSS 2.0; relative to the config file's directory. */
  file: z.string().trim().min(1, 'file must name a catalog file'),
  /** Serve only items whose `site` is listed; describe() publishes exactly these sites. */
  sites: z.array(z.string().trim().min(1)).min(1).optional(),
  /** Results per ask when the client does not say (capped at RESULT_CAP). */
  maxResults: z.number().int().positive().max(RESULT_CAP).default(DEFAULT_MAX_RESULTS),
  /** Default minimum score (0-100; a value below 1 is read as a fraction) a hit needs; a client's `min_score` overrides it. */
  minScore: z.number().min(0).max(100).optional(),
  /** Honour `prefer.mode: summarize` with an extractive SearchSummary item. */
  summarize: z.boolean().default(true),
});

export type CatalogConfig = z.infer<typeof CatalogConfigSchema>;
