import { hash } from 'node:crypto';
import type { Gateway, ReadAhead } from '../../core/gateway-types.ts';
import { handleProblem, MIN_CLIENT_HANDLE_CHARS } from '../../core/ownership.ts';
import type { Principal } from '../../core/principal.ts';
import { conversationTokenPart, type NlipPart } from '../../protocol/nlip/index.ts';

/**
 * NLIP conversation tokens (ECMA-430 6.2) ↔ gateway conversations. Every conversation token a peer
 * sends is echoed exactly. The gateway mints its own (subformat exactly `conversation`) on the first
 * reply of a conversation: `nlipconv_` and the conversation's id, so the token names the
 * conversation itself, in the caller's namespace (the core keeps every conversation in its owner's
 * namespace, core/conversations.ts): no store entry maps it (issue 25: that alias cost a SHA-256 and a
 * store write per first message, and a store read and write per later one). A peer's own tokens are
 * mapped to the conversation through the store, for the principal that sent them only (another
 * caller sending them starts a conversation of its own); the store keys on their SHA-256, never on
 * the token itself, and tokens are never logged.
 */

const ALIAS_KIND = 'nlip';
/** What the gateway's own tokens start with; the rest is the conversation's id. */
const MINTED_PREFIX = 'nlipconv_';
/**
 * Peer tokens outside these lengths are echoed but not mapped: a short one is too guessable to key a
 * conversation (peers mint their own, sometimes "1"; the gateway's one rule for client-chosen
 * handles, core/ownership.ts), a long one would only bloat store keys.
 */
const MIN_MAPPED_TOKEN = MIN_CLIENT_HANDLE_CHARS;
const MAX_MAPPED_TOKEN = 1024;
/** At most this many tokens of one message are looked up and bound (the rest are only echoed). */
const MAX_MAPPED_PER_MESSAGE = 8;

/** The conversation a token the gateway minted names (undefined for any other conversation token). */
function mintedConversation(part: NlipPart): string | undefined {
  if (typeof part.content !== 'string' || !part.content.startsWith(MINTED_PREFIX)) return undefined;
  const id = part.content.slice(MINTED_PREFIX.length);
  return handleProblem(id, 'token') === undefined ? id : undefined;
}

/** Whether a token is one of the peer's own that is mapped to conversations at all. */
function isMappable(part: NlipPart): boolean {
  return typeof part.content === 'string' && part.content.length >= MIN_MAPPED_TOKEN && part.content.length <= MAX_MAPPED_TOKEN && mintedConversation(part) === undefined;
}

/** The store handle of a peer's own token, when it is mapped at all. */
function handleOf(part: NlipPart): string | undefined {
  return isMappable(part) ? hash('sha256', part.content as string, 'base64url') : undefined;
}

/** The conversation a message's tokens name: its id, the peer token's mapping that named it, that conversation as read. */
export interface KnownConversation {
  id?: string;
  /** The mapped handle (of one of the peer's own tokens) the id was read from, its TTL refreshed by that read. */
  via?: string;
  readAhead?: ReadAhead;
}

/**
 * 6.2 The gateway conversation the peer's tokens name, if any: a token the gateway minted names it
 * directly; otherwise the first of the peer's own tokens mapped to one, that conversation read with
 * the mapping (`readAhead`, for the ask).
 */
export function resolveConversation(gateway: Gateway, tokens: NlipPart[], owner: Principal | undefined): KnownConversation | Promise<KnownConversation> {
  const checked = tokens.slice(0, MAX_MAPPED_PER_MESSAGE);
  for (const t of checked) {
    const id = mintedConversation(t);
    if (id !== undefined) return { id };
  }
  // No peer token to look up (a first message, or the gateway's own token): known at once, no await (issue 25).
  return checked.some(isMappable) ? lookUpConversation(gateway, checked, owner) : {};
}

/** resolveConversation's store lookups: the first of the peer's own tokens mapped to a conversation. */
async function lookUpConversation(gateway: Gateway, checked: NlipPart[], owner: Principal | undefined): Promise<KnownConversation> {
  for (const t of checked) {
    const handle = handleOf(t);
    if (handle === undefined) continue;
    // The mapped conversation is read with the mapping: the ask then continues it without a read.
    const { conversationId, readAhead } = await gateway.resolveConversation(ALIAS_KIND, handle, owner);
    if (conversationId) return { id: conversationId, via: handle, ...(readAhead ? { readAhead } : {}) };
  }
  return {};
}

/**
 * 6.2 The token parts for a reply: every received token exactly (subformat, content, label), plus the
 * gateway's own token when the conversation is new (`minted`). The peer's own tokens are (re)bound to
 * `conversationId`, refreshing their TTL; all but the one whose mapping `known` was just read from,
 * when it still names the same conversation (that read refreshed it: issue 25, a store write fewer).
 */
export function replyTokens(
  gateway: Gateway,
  received: NlipPart[],
  conversationId: string | undefined,
  known: KnownConversation,
  owner: Principal | undefined,
): NlipPart[] | Promise<NlipPart[]> {
  const echoed = received.map((t) => ({ ...t }));
  if (conversationId === undefined) return echoed;
  const reply = known.id !== undefined ? echoed : [...echoed, conversationTokenPart(`${MINTED_PREFIX}${conversationId}`)];
  const toBind = echoed
    .slice(0, MAX_MAPPED_PER_MESSAGE)
    .map(handleOf)
    .filter((handle): handle is string => handle !== undefined && !(handle === known.via && conversationId === known.id));
  // Nothing to bind (no peer tokens, or only the one just read): the reply at once, no await (issue 25).
  if (toBind.length === 0) return reply;
  return (async () => {
    for (const handle of toBind) await gateway.bindConversation(ALIAS_KIND, handle, conversationId, owner);
    return reply;
  })();
}
