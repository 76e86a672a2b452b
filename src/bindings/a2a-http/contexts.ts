import { hash } from 'node:crypto';
import { GatewayError } from '../../base/errors.ts';
import { handleProblem } from '../../core/ownership.ts';

/**
 * A2A `contextId` (spec 1.0 §3.4.1, "context identifier") ↔ gateway conversations. A context IS a
 * conversation of the caller: the core keeps every conversation in its owner's namespace
 * (core/conversations.ts), so two callers sending the same contextId reach two conversations, and a
 * contextId someone else uses is, for this caller, simply a new context. No alias is kept: a new
 * context is named after the conversation its first answer started (issue 25: the alias cost a
 * SHA-256 and a store write per SendMessage, and a store read per message naming a context).
 */

/** A client-chosen contextId must be at least this long (as guessable as a short password otherwise). */
export const MIN_CLIENT_CONTEXT_ID = 16;

/** Prefix of the conversation id of a contextId that is not a valid conversation handle itself. */
const HASHED_PREFIX = 'a2a.';

/**
 * The conversation a client-sent contextId names: the contextId itself when it is a valid
 * conversation handle (every id the gateway hands out is), else `a2a.` and its SHA-256, so an id of
 * any charset and length up to the wire's limit (MAX_ID_CHARS) names one conversation.
 * A contextId shorter than MIN_CLIENT_CONTEXT_ID is refused (§3.4.1 allows refusing).
 */
export function contextConversation(contextId: string): string {
  if (contextId.length < MIN_CLIENT_CONTEXT_ID) {
    throw new GatewayError('INVALID_REQUEST', `contextId must be at least ${MIN_CLIENT_CONTEXT_ID} characters (or left out: the agent then assigns one)`);
  }
  return handleProblem(contextId, 'contextId') === undefined ? contextId : `${HASHED_PREFIX}${hash('sha256', contextId, 'base64url')}`;
}
