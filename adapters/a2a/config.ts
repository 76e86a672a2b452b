import { z } from 'zod';

/**
 * Kind `a2a`: an upstream A2A 1.0 agent (JSON-RPC or HTTP+JSON), found through its agent card.
 * Strict: an unknown field is a config error, so a typo never silently turns a feature off.
 */
export const A2aAdapterConfigSchema = z.strictObject({
  /**
   * The agent's base URL (its card is `{url}/.well-known/agent-card.json`) or the card's own URL
   * (any URL ending in `.json`). Only interfaces the card lists on this URL's origin are used.
   */
  url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }),
  /** Headers sent on every upstream call, the card included (the gateway's own credentials to the upstream). */
  headers: z.record(z.string(), z.string()).optional(),
  /** The transport to prefer when the card offers both (default JSON-RPC). */
  transport: z.enum(['JSONRPC', 'HTTP+JSON']).optional(),
  /** Stream answers (SendStreamingMessage) when the card says the agent streams; default true. */
  streaming: z.boolean().optional(),
  /** How long the card is cached before it is read again (ms; default 300 000). */
  cardTtlMs: z.number().int().positive().optional(),
});

/** The validated kind-specific config of an `a2a` agent. */
export type A2aAdapterConfig = z.infer<typeof A2aAdapterConfigSchema>;
