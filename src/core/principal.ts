/**
 * Who is calling, as the edge established it. Every handle the gateway mints or accepts (promise
 * tokens, conversations, sessions, uploads) is owned by `Principal.id`, and limits are keyed by it.
 */
export interface Principal {
  /**
   * Stable identity: `key:<name>` for an API key, `jwt:<iss>#<sub>` for a verified JWT,
   * `anon:<client address>` for an anonymous caller. Never a secret.
   */
  id: string;
  /** Readable name for logs: the API key's principal, the JWT subject, or `anonymous`. */
  name: string;
  /** True when a credential was verified (API key or JWT); false for anonymous callers. */
  verified: boolean;
  /** The agents this principal may use; absent = every agent. */
  agents?: readonly string[];
  /** A per-principal rate limit that replaces the agent's own for this caller. */
  rateLimit?: { requests: number; windowMs: number };
  /** Agent calls this principal may keep running at once, replacing `limits.maxCallsPerPrincipal`. */
  maxCalls?: number;
}

/** An anonymous caller known only by its client address (or `unknown` for in-process requests). */
export function anonymousPrincipal(address: string | undefined): Principal {
  return { id: `anon:${address || 'unknown'}`, name: 'anonymous', verified: false };
}
