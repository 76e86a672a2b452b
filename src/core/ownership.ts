import { hash } from 'node:crypto';
import { GatewayError } from '../base/errors.ts';
import type { CallOptions } from './gateway-types.ts';
import type { Principal } from './principal.ts';
import { ownedByVerified, VERIFIED_OWNER_MARK } from '../store/store.ts';

/**
 * Ownership of handles (issue 11 "Ownership"): every promise, conversation, session and upload is
 * bound to the principal that created it. What the store keeps is an owner TAG — a hash of
 * `Principal.id` — so keys stay short and uniform whatever the identity looks like; it is not a
 * secret. A caller whose tag differs gets exactly the answer of a handle that never existed.
 */

/** The principal of a call made without one (in-process callers, internal re-runs): `anon:unknown`. */
const NOBODY = 'anon:unknown';

/** Whether a principal id is a verified identity (anonymous ones are `anon:<address>`). */
export function isVerifiedId(id: string): boolean {
  return !id.startsWith('anon:');
}

/**
 * The owner tag of a principal: 22 base64url characters of SHA-256(`Principal.id`), after
 * VERIFIED_OWNER_MARK for a verified principal (so stores keep its state apart from anonymous
 * callers', issue 24).
 */
export function ownerTag(principal: Pick<Principal, 'id'> | undefined): string {
  const id = principal?.id ?? NOBODY;
  let tag = recentTags.get(id);
  if (tag === undefined) {
    tag = (isVerifiedId(id) ? VERIFIED_OWNER_MARK : '') + hash('sha256', id, 'base64url').slice(0, 22);
    // Bounded: a flood of distinct callers empties the memo rather than growing it.
    if (recentTags.size >= MAX_REMEMBERED_TAGS) recentTags.clear();
    recentTags.set(id, tag);
  }
  return tag;
}

/**
 * Tags of recent principals: every call of a handle checks its owner, and a SHA-256 per check was
 * a visible share of a call's CPU (`npm run bench:profile mcp`).
 */
const recentTags = new Map<string, string>();
const MAX_REMEMBERED_TAGS = 10_000;

/** True when `tag` (as stored with a handle) is the owner tag of `principal`. A missing tag owns nothing. */
export function isOwner(tag: string | undefined, principal: Pick<Principal, 'id'> | undefined): boolean {
  return tag !== undefined && tag === ownerTag(principal);
}

/**
 * The store id of a caller's handle: the handle inside the owner's namespace. Two principals naming
 * the same handle (a client-chosen conversation id, a webtool sessionId) reach different records.
 */
export function scopedId(tag: string, handle: string): string {
  return `${tag}:${handle}`;
}

/**
 * A scoped id for a handle of any length and charset (NLIP tokens, aliases): the handle is hashed too.
 * One-shot `crypto.hash`, not a Hash object: it runs on every call of a session or conversation
 * handle (`bench:profile mcp`: ≈ 1% of a session call), and costs half as much for a short input.
 */
export function scopedHandle(principal: Pick<Principal, 'id'> | undefined, kind: string, handle: string): string {
  const tag = ownerTag(principal);
  return (ownedByVerified(tag) ? VERIFIED_OWNER_MARK : '') + hash('sha256', `${tag}\u0000${kind}\u0000${handle}`, 'base64url');
}

/**
 * Client-chosen conversation handles (NLWeb `conversation_id`, webtool `sessionId`, NLIP conversation
 * tokens) must carry enough entropy to name one conversation: at least this many characters.
 */
export const MIN_CLIENT_HANDLE_CHARS = 16;
/** Longest client-chosen conversation id kept as a key (longer ones would only bloat store keys). */
export const MAX_CLIENT_HANDLE_CHARS = 128;
/** The characters a client-chosen conversation id may use (it becomes part of a store key). */
const HANDLE_CHARS = /^[A-Za-z0-9_.:-]+$/;

/**
 * Why a client-chosen conversation handle is refused, or undefined when it is acceptable: the one
 * rule every binding shares (`what` names the field in the message, e.g. `meta.session_context.conversation_id`).
 */
export function handleProblem(handle: string, what: string): string | undefined {
  if (handle.length < MIN_CLIENT_HANDLE_CHARS) {
    return `${what} must be at least ${MIN_CLIENT_HANDLE_CHARS} characters (a random id, e.g. a UUID), so that it names one conversation; omit it to have the gateway mint one`;
  }
  if (handle.length > MAX_CLIENT_HANDLE_CHARS) return `${what} must be at most ${MAX_CLIENT_HANDLE_CHARS} characters`;
  if (!HANDLE_CHARS.test(handle)) return `${what} may use only letters, digits and "_", ".", ":", "-"`;
  return undefined;
}

/** The one "unknown promise" answer (NLWeb 4.2): the same for an expired, a never-issued and another caller's token. */
export function unknownPromise(): GatewayError {
  return new GatewayError('PROMISE_NOT_FOUND', 'Unknown or expired promise token');
}

/**
 * NLWeb 4.2 on an agent that requires authentication: its promise is only for a caller who
 * authenticates now too (a verified principal, or credentials the agent's admission takes), on top
 * of being the promise's owner — a check-in without credentials is as unknown as a foreign token.
 */
export function mayAwait(agentRequiresAuth: boolean, opts: Pick<CallOptions, 'principal' | 'credentials'>): boolean {
  return !agentRequiresAuth || opts.principal?.verified === true || Boolean(opts.credentials?.authorization);
}
