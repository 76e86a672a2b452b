import type { Store } from '../store/store.ts';
import type { AgentEntry } from './agents.ts';
import { GatewayError } from '../base/errors.ts';
import type { CallOptions } from './gateway-types.ts';
import { anonymousPrincipal } from './principal.ts';
import { publishRejection } from './core-events.ts';
import { CallSlots, type FreeSlot } from './call-slots.ts';

/**
 * Admission before any agent call (issue 11 "Trust at the edge"): a `requireAuth` agent takes only
 * a verified principal (401); a principal whose `agents` list leaves this agent out is refused
 * (403); then the rate limit — the principal's own (API key `rateLimit`) else the agent's — is
 * taken per principal id (verified identity, or the client address for anonymous callers; never a
 * raw header value, so rotating credentials or headers does not escape it). NLWeb 2.5: 429 +
 * Retry-After. Last, the call takes one of the principal's slots (call-slots.ts); the caller frees it
 * when the call ends.
 */
export async function admit(entry: AgentEntry, opts: CallOptions, store: Store, slots?: CallSlots): Promise<FreeSlot> {
  const name = entry.config.name;
  const principal = opts.principal ?? anonymousPrincipal(undefined);
  if (entry.config.requireAuth && !principal.verified) {
    throw new GatewayError('UNAUTHORIZED', `Agent "${name}" requires authentication`);
  }
  if (principal.agents && !principal.agents.includes(name)) {
    throw new GatewayError('FORBIDDEN', `"${principal.name}" may not use agent "${name}"`);
  }
  const limit = principal.rateLimit ?? entry.config.rateLimit;
  if (limit) {
    const decision = await store.limiter(`agent:${name}`, limit.requests, limit.windowMs).consume(principal.id);
    if (!decision.allowed) {
      publishRejection('rate_limit', name);
      throw new GatewayError('RATE_LIMITED', `Too many requests to agent "${name}"`, { retryAfter: Math.ceil(decision.retryAfterMs / 1000) });
    }
  }
  // Taken after the last await: a refusal above never holds a slot.
  return slots ? slots.take(principal, name) : CallSlots.uncounted;
}
