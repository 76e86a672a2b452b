import type { AskRequest } from '../protocol/nlweb/index.ts';
import type { Store } from '../store/store.ts';
import type { ConversationView } from './agent.ts';
import { publishCreated } from './core-events.ts';
import { newToken } from './ids.ts';

/** Conversation ids a client may send: bounded length and a URL-safe charset (they become store keys). */
const CLIENT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A conversation turn in progress: the id, what the adapter sees, and the request as sent upstream. */
export interface Turn {
  conversationId: string;
  view: ConversationView;
  /** The request with `context.prev` filled from the conversation when the client sent none. */
  request: AskRequest;
}

/**
 * Conversations (design.md "State"): `meta.session_context.conversation_id` keys the previous queries
 * and each upstream's own `session_context`. One store read when the client names a conversation,
 * none for a new one; one atomic write when the turn ends.
 */
export class Conversations {
  constructor(
    private readonly store: Store,
    private readonly opts: { idleTtlMs: number; maxPrev: number },
  ) {}

  /** Opens a turn for `agent`: loads (or mints) the conversation and fills `context.prev`. */
  async begin(request: AskRequest, agent: string): Promise<Turn> {
    const claimed = request.meta?.session_context?.conversation_id;
    const known = typeof claimed === 'string' && CLIENT_ID.test(claimed) ? claimed : undefined;
    const record = known ? await this.store.getConversation(known, this.opts.idleTtlMs) : null;
    const conversationId = known ?? newToken('conv');
    if (!record) publishCreated('conversation', agent);
    const view: ConversationView = {
      id: conversationId,
      prev: record?.prev ?? [],
      attrs: record?.attrs ?? {},
      ...(record?.upstream[agent] ? { upstreamSession: record.upstream[agent] } : {}),
    };
    const clientPrev = request.context?.prev;
    const upstreamRequest =
      (clientPrev === undefined || clientPrev.length === 0) && view.prev.length > 0
        ? { ...request, context: { ...request.context, prev: [...view.prev] } }
        : request;
    return { conversationId, view, request: upstreamRequest };
  }

  /** Records the finished turn: the query joins `prev`; the upstream's new session_context is kept. */
  async finish(turn: Turn, agent: string, upstreamSession?: Record<string, unknown>): Promise<void> {
    await this.store.recordTurn(
      turn.conversationId,
      { query: turn.request.query.text, agent, ...(upstreamSession ? { upstreamSession } : {}) },
      { maxPrev: this.opts.maxPrev, idleTtlMs: this.opts.idleTtlMs },
    );
  }

  /** Stores an adapter-private value (cookie, upstream token) for the conversation. */
  async setAttr(conversationId: string, key: string, value: string): Promise<void> {
    await this.store.setConversationAttr(conversationId, key, value, this.opts.idleTtlMs);
  }

  /** Maps an external handle (NLIP token, webtool sessionId, MCP session) to a conversation id. */
  async resolveAlias(kind: string, handle: string): Promise<string | null> {
    return this.store.getRecord(`alias:${kind}`, handle, this.opts.idleTtlMs);
  }

  async bindAlias(kind: string, handle: string, conversationId: string): Promise<void> {
    await this.store.putRecord(`alias:${kind}`, handle, conversationId, this.opts.idleTtlMs);
  }

  /** The `_meta.session_context` a client gets back: the gateway's conversation id. */
  static sessionContext(conversationId: string): Record<string, unknown> {
    return { conversation_id: conversationId };
  }
}
