import { createHash } from 'node:crypto';
import type { Gateway } from '../../core/gateway-types.ts';
import { newToken } from '../../core/ids.ts';
import { MIN_CLIENT_HANDLE_CHARS } from '../../core/ownership.ts';
import type { Principal } from '../../core/principal.ts';
import { conversationTokenPart, type NlipPart } from '../../protocol/nlip/index.ts';

/**
 * NLIP conversation tokens (ECMA-430 6.2) ↔ gateway conversations. Every conversation token a peer
 * sends is echoed exactly; the gateway mints its own (subformat exactly `conversation`) on the first
 * reply of a conversation and maps every token it sees to the conversation through the store, so any
 * replica continues it. A token maps to a conversation only for the principal that bound it (another
 * caller sending it starts a conversation of its own). The store keys on the token's SHA-256, never
 * on the token itself, and tokens are never logged.
 */

const ALIAS_KIND = 'nlip';
/**
 * Tokens outside these lengths are echoed but not mapped: a short one is too guessable to key a
 * conversation (peers mint their own, sometimes "1"; the gateway's one rule for client-chosen
 * handles, core/ownership.ts), a long one would only bloat store keys.
 */
const MIN_MAPPED_TOKEN = MIN_CLIENT_HANDLE_CHARS;
const MAX_MAPPED_TOKEN = 1024;
/** At most this many tokens of one message are looked up and bound (the rest are only echoed). */
const MAX_MAPPED_PER_MESSAGE = 8;

function handleOf(part: NlipPart): string | undefined {
  if (typeof part.content !== 'string' || part.content.length < MIN_MAPPED_TOKEN || part.content.length > MAX_MAPPED_TOKEN) return undefined;
  return createHash('sha256').update(part.content).digest('base64url');
}

/** 6.2 The gateway conversation the peer's tokens map to, if any (first known token wins). */
export async function resolveConversation(gateway: Gateway, tokens: NlipPart[], owner: Principal | undefined): Promise<string | undefined> {
  for (const t of tokens.slice(0, MAX_MAPPED_PER_MESSAGE)) {
    const handle = handleOf(t);
    if (handle === undefined) continue;
    const id = await gateway.resolveConversation(ALIAS_KIND, handle, owner);
    if (id) return id;
  }
  return undefined;
}

/**
 * 6.2 The token parts for a reply: every received token exactly (subformat, content, label), plus a
 * token minted now when the conversation was new. Every token is (re)bound to `conversationId`.
 */
export async function replyTokens(
  gateway: Gateway,
  received: NlipPart[],
  conversationId: string | undefined,
  known: boolean,
  owner: Principal | undefined,
): Promise<NlipPart[]> {
  const echoed = received.map((t) => ({ ...t }));
  if (conversationId === undefined) return echoed;
  const minted = known ? [] : [conversationTokenPart(newToken('nlipconv'))];
  // The minted token is always bound; peer tokens up to the limit (refreshing their TTL).
  for (const part of [...echoed.slice(0, MAX_MAPPED_PER_MESSAGE), ...minted]) {
    const handle = handleOf(part);
    if (handle !== undefined) await gateway.bindConversation(ALIAS_KIND, handle, conversationId, owner);
  }
  return [...echoed, ...minted];
}
