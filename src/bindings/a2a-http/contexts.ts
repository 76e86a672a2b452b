import { createHash } from 'node:crypto';
import { GatewayError } from '../../base/errors.ts';
import type { Gateway } from '../../core/gateway-types.ts';
import { newToken } from '../../core/ids.ts';
import type { Principal } from '../../core/principal.ts';

/**
 * A2A `contextId` (spec 1.0 §3.4.1, "context identifier") ↔ gateway conversations. The handle kept in
 * the store is the SHA-256 of the caller's principal id and the context id, and it is bound with the
 * owner-aware `bindConversation`: two callers sending the same contextId get two conversations, and
 * a contextId someone else uses is, for this caller, simply a new context.
 */

const ALIAS_KIND = 'a2a';
/** A client-chosen contextId must be at least this long (as guessable as a short password otherwise). */
export const MIN_CLIENT_CONTEXT_ID = 16;

const handleOf = (principal: Principal, contextId: string) => createHash('sha256').update(`${principal.id}\n${contextId}`).digest('base64url');

/** The context a message belongs to: its own contextId (checked) or a new one, and the known conversation. */
export async function openContext(gateway: Gateway, principal: Principal, contextId: string | undefined): Promise<{ contextId: string; conversationId?: string }> {
  if (contextId === undefined) return { contextId: newToken('ctx') };
  const conversationId = await gateway.resolveConversation(ALIAS_KIND, handleOf(principal, contextId), principal);
  if (conversationId) return { contextId, conversationId };
  if (contextId.length < MIN_CLIENT_CONTEXT_ID) {
    throw new GatewayError('INVALID_REQUEST', `contextId must be at least ${MIN_CLIENT_CONTEXT_ID} characters (or left out: the agent then assigns one)`);
  }
  return { contextId };
}

/** Binds the contextId to the conversation the answer belongs to, for this caller only. */
export async function bindContext(gateway: Gateway, principal: Principal, contextId: string, conversationId: string | undefined): Promise<void> {
  if (conversationId) await gateway.bindConversation(ALIAS_KIND, handleOf(principal, contextId), conversationId, principal);
}
