import { createHash } from 'node:crypto';
import type { Store } from '../store/store.ts';
import type { AgentEntry } from './agents.ts';
import { GatewayError } from './errors.ts';
import type { CallOptions } from './gateway-types.ts';
import { publishRejection } from './core-events.ts';

/**
 * Admission before any agent call: authentication where the agent requires it (401), then the
 * agent's fixed-window rate limit per client credential (NLWeb 2.5: 429 + Retry-After). The
 * credential is hashed before it becomes part of a store key: credentials are never stored.
 */
export async function admit(entry: AgentEntry, opts: CallOptions, store: Store): Promise<void> {
  const authorization = opts.credentials?.authorization;
  if (entry.config.requireAuth && !authorization) {
    throw new GatewayError('UNAUTHORIZED', `Agent "${entry.config.name}" requires authentication`);
  }
  const limit = entry.config.rateLimit;
  if (!limit) return;
  const who = authorization ? createHash('sha256').update(authorization).digest('base64url').slice(0, 22) : 'anonymous';
  const count = await store.hit(`rate:${entry.config.name}:${who}`, limit.windowMs);
  if (count > limit.requests) {
    publishRejection('rate_limit', entry.config.name);
    throw new GatewayError('RATE_LIMITED', `Too many requests to agent "${entry.config.name}"`, { retryAfter: Math.ceil(limit.windowMs / 1000) });
  }
}
