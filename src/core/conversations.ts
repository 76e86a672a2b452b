import type { AskRequest } from '../protocol/nlweb/index.ts';
import type { RecordWrite, Store } from '../store/store.ts';
import type { ConversationView } from './agent.ts';
import type { ReadAhead } from './gateway-types.ts';
import { GatewayError } from '../base/errors.ts';
import { publishCreated } from './core-events.ts';
import { newToken } from './ids.ts';
import { handleProblem, ownerTag, scopedHandle, scopedId } from './ownership.ts';
import type { Principal } from './principal.ts';

/** A conversation turn in progress: the id, what the adapter sees, and the request as sent upstream. */
export interface Turn {
  /** The id the client sees (`meta.session_context.conversation_id`). */
  conversationId: string;
  /** The store id: the conversation inside its owner's namespace (ownership.ts `scopedId`). */
  key: string;
  view: ConversationView;
  /** The request with `context.prev` filled from the conversation when the client sent none. */
  request: AskRequest;
}

/** The bounds on what a conversation keeps (config `defaults.maxPrev`, `limits.maxPrev*Chars`). */
export interface ConversationLimits {
  idleTtlMs: number;
  maxPrev: number;
  /** A stored previous query is cut to this many characters. */
  maxPrevItemChars?: number;
  /** The stored previous queries together keep at most this many characters (the oldest go first). */
  maxPrevTotalChars?: number;
}

/**
 * `text` cut to `max` UTF-16 code units, never leaving half a surrogate pair at the end (issue 11,
 * `limits.maxPrevItemChars`). The cut is a copy of its own: V8 keeps a slice as a view of the whole
 * string it was cut from, so a stored slice would keep the whole query alive, past every cap.
 */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return Buffer.from(text.slice(0, end), 'utf16le').toString('utf16le');
}

/**
 * Conversations (design.md "State"): `meta.session_context.conversation_id` keys the previous queries
 * and each upstream's own `session_context`. Every conversation lives in its owner's namespace, so a
 * client-chosen id names a different conversation for every principal, and a gateway-minted id used
 * by anyone else is simply unknown (a new, empty conversation). One store read when the client names
 * a conversation, none for a new one; one atomic write when the turn ends.
 */
export class Conversations {
  constructor(
    private readonly store: Store,
    private readonly opts: ConversationLimits,
  ) {}

  /**
   * Opens a turn for `agent`: loads (or mints) the conversation of `owner` and fills `context.prev`.
   * A client-chosen id that is too short to be unguessable is refused (INVALID_QUERY) before any work.
   */
  async begin(request: AskRequest, agent: string, owner: Principal | undefined, readAhead?: ReadAhead): Promise<Turn> {
    const raw = request.meta?.session_context?.conversation_id;
    const claimed = raw === null ? undefined : raw;
    if (claimed !== undefined && typeof claimed !== 'string') {
      throw new GatewayError('INVALID_QUERY', 'meta.session_context.conversation_id must be a string');
    }
    if (claimed !== undefined) {
      const problem = handleProblem(claimed, 'meta.session_context.conversation_id');
      if (problem) throw new GatewayError('INVALID_QUERY', problem);
    }
    const conversationId = claimed ?? newToken('conv');
    const key = scopedId(ownerTag(owner), conversationId);
    // A conversation read ahead with the record that names it is this one only under the same key.
    const record = claimed === undefined ? null : readAhead?.id === key ? readAhead.record : await this.store.getConversation(key, this.opts.idleTtlMs);
    if (!record) publishCreated('conversation', agent);
    const view: ConversationView = {
      id: key,
      prev: record?.prev ?? [],
      attrs: record?.attrs ?? {},
      ...(record?.upstream[agent] ? { upstreamSession: record.upstream[agent] } : {}),
    };
    const clientPrev = request.context?.prev;
    const upstreamRequest =
      (clientPrev === undefined || clientPrev.length === 0) && view.prev.length > 0
        ? { ...request, context: { ...request.context, prev: [...view.prev] } }
        : request;
    return { conversationId, key, view, request: upstreamRequest };
  }

  /** The turn a lost promise is run again in: its conversation, in the namespace of the promise's owner tag (no store read). */
  resume(request: AskRequest, conversationId: string | undefined, tag: string): Turn {
    const id = conversationId ?? newToken('conv');
    const key = scopedId(tag, id);
    return { conversationId: id, key, view: { id: key, prev: [], attrs: {} }, request };
  }

  /**
   * Records the finished turn: the query (cut to its cap) joins `prev`; the upstream's new
   * session_context is kept; `record`, a binding's record of the answer, is written with it.
   */
  async finish(turn: Turn, agent: string, upstreamSession?: Record<string, unknown>, record?: RecordWrite): Promise<void> {
    const { maxPrevItemChars, maxPrevTotalChars } = this.opts;
    const cap = Math.min(maxPrevItemChars ?? Infinity, maxPrevTotalChars ?? Infinity);
    const query = cutChars(turn.request.query.text, cap);
    await this.store.recordTurn(
      turn.key,
      { query, agent, ...(upstreamSession ? { upstreamSession } : {}) },
      { maxPrev: this.opts.maxPrev, idleTtlMs: this.opts.idleTtlMs, ...(maxPrevTotalChars !== undefined ? { maxPrevTotalChars } : {}) },
      record,
    );
  }

  /** Stores an adapter-private value (cookie, upstream token) for the conversation. */
  async setAttr(turn: Turn, key: string, value: string): Promise<void> {
    await this.store.setConversationAttr(turn.key, key, value, this.opts.idleTtlMs);
  }

  /**
   * Maps an external handle (NLIP token, webtool sessionId, MCP session) of `owner` to a conversation
   * id, and reads the conversation it names (else the `fallback` handle's) in the same store trip.
   */
  async resolveAlias(kind: string, handle: string, owner: Principal | undefined, fallback?: string): Promise<{ conversationId: string | null; readAhead?: ReadAhead }> {
    const link = { ownerTag: ownerTag(owner), idleTtlMs: this.opts.idleTtlMs, ...(fallback ? { fallback } : {}) };
    const read = await this.store.getRecordAndConversation(`alias:${kind}`, scopedHandle(owner, kind, handle), this.opts.idleTtlMs, link);
    return { conversationId: read.record, ...(read.conversation ? { readAhead: read.conversation } : {}) };
  }

  /** Binds an external handle of `owner` to a conversation; nobody else resolves it. */
  async bindAlias(kind: string, handle: string, conversationId: string, owner: Principal | undefined): Promise<void> {
    await this.store.putRecord(`alias:${kind}`, scopedHandle(owner, kind, handle), conversationId, this.opts.idleTtlMs, ownerTag(owner));
  }

  /** A binding's record and the conversation of `owner` its JSON `field` names, in one store read (Store.getRecordAndConversation). */
  readLinked(namespace: string, id: string, touchTtlMs: number, field: string, owner: Principal | undefined): Promise<{ record: string | null; conversation?: ReadAhead }> {
    return this.store.getRecordAndConversation(namespace, id, touchTtlMs, { field, ownerTag: ownerTag(owner), idleTtlMs: this.opts.idleTtlMs });
  }

  /** The `_meta.session_context` a client gets back: the gateway's conversation id. */
  static sessionContext(conversationId: string): Record<string, unknown> {
    return { conversation_id: conversationId };
  }
}
