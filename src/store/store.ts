/**
 * The store contract (design.md "State"). Two implementations pass one contract suite
 * (`contract.ts`): `MemoryStore` (embedded default) and `RedisStore` (replicas, restarts).
 *
 * Operations are domain-level so that each transition that can race is atomic in the backend
 * (a Lua script in Redis, a synchronous critical section in memory). Every key has a TTL.
 */
import type { CanonicalResponse } from '../protocol/nlweb/index.ts';

export type PromiseStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** A promise the gateway issued (NLWeb 4.1.2), as stored. */
export interface PromiseRecord {
  /** The gateway's own token: ≥128 random bits, base64url. */
  token: string;
  agent: string;
  status: PromiseStatus;
  /** Replica id that runs the call; only it may renew the lease or report progress. */
  owner: string;
  /** Epoch ms after which the owner is presumed dead. */
  leaseUntil: number;
  createdAt: number;
  updatedAt: number;
  progress?: number;
  message?: string;
  estimatedTime?: number;
  /** The final response once settled (answer, elicitation or failure). */
  response?: CanonicalResponse;
  /** When the upstream answered with its own promise: its token, for check-ins and cancels. */
  upstreamToken?: string;
  /** The request, kept so an idempotent agent's call can be run again by another replica. */
  request?: unknown;
  conversationId?: string;
}

/** Fields a settle writes; the status must be terminal. */
export interface Settlement {
  status: Exclude<PromiseStatus, 'running'>;
  response: CanonicalResponse;
}

/** A conversation (NLWeb `session_context.conversation_id`, NLIP token, webtool sessionId, MCP session). */
export interface ConversationRecord {
  id: string;
  /** Previous queries, oldest first, capped. */
  prev: string[];
  /** The `session_context` each upstream agent returned last, by agent name. */
  upstream: Record<string, Record<string, unknown>>;
  /** Binding- and adapter-private values (NLIP tokens, cookies, upstream session ids), by key. */
  attrs: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

/** One turn to record in a conversation. */
export interface TurnRecord {
  query: string;
  agent: string;
  /** The upstream's `session_context` after this turn; absent leaves the stored one as it is. */
  upstreamSession?: Record<string, unknown>;
}

export interface Store {
  readonly kind: 'memory' | 'redis';

  // ---- promises ----
  /** Stores a new running promise; its record lives `ttlMs`. Fails if the token exists. */
  createPromise(record: PromiseRecord, ttlMs: number): Promise<void>;
  getPromise(token: string): Promise<PromiseRecord | null>;
  /**
   * Atomically moves a running promise to a terminal state. Returns true if this call made the
   * transition, false if the promise was already settled (or is gone). Complete-vs-cancel races
   * resolve here: exactly one settle wins. `ttlMs` resets the record's life after settling.
   */
  settlePromise(token: string, settlement: Settlement, ttlMs: number): Promise<boolean>;
  /** Updates progress/message/upstreamToken of a running promise owned by `owner`. False if not. */
  updatePromise(
    token: string,
    owner: string,
    patch: Partial<Pick<PromiseRecord, 'progress' | 'message' | 'estimatedTime' | 'upstreamToken'>>,
  ): Promise<boolean>;
  /** Extends the lease of a running promise owned by `owner` to `leaseUntil`. False if not owner or not running. */
  renewLease(token: string, owner: string, leaseUntil: number): Promise<boolean>;
  /** Tokens of running promises whose lease ended before `now` (at most `limit`). */
  expiredLeases(now: number, limit: number): Promise<string[]>;
  /**
   * Atomically takes over a running promise whose lease ended before `now`: sets owner and
   * leaseUntil and returns the updated record; null when the lease is live, already taken, or settled.
   */
  claimExpiredLease(token: string, newOwner: string, leaseUntil: number, now: number): Promise<PromiseRecord | null>;
  /**
   * Releases the leases of running promises owned by `owner` (a replica shutting down): their lease
   * ends now, so `expiredLeases` lists them and another replica claims them at once. Returns the
   * tokens released; promises settled, unknown or owned by another replica are left as they are.
   */
  releaseLeases(tokens: readonly string[], owner: string): Promise<string[]>;
  /** Shortens a settled promise's life after its answer was read (a retried read still works briefly). */
  expirePromise(token: string, ttlMs: number): Promise<void>;

  // ---- cross-replica cancel ----
  /** Tells every replica (this one included) that `token` was cancelled. */
  publishCancel(token: string): Promise<void>;
  /** Registers a handler for cancel messages; resolves once listening; returns an unsubscribe. */
  onCancel(handler: (token: string) => void): Promise<() => Promise<void>>;

  // ---- conversations ----
  /** Reads a conversation and refreshes its idle TTL. */
  getConversation(id: string, idleTtlMs: number): Promise<ConversationRecord | null>;
  /**
   * Atomically appends a turn (creating the conversation if absent): the query joins `prev`
   * (keeping the last `maxPrev`), the agent's upstream session is replaced when given.
   */
  recordTurn(id: string, turn: TurnRecord, opts: { maxPrev: number; idleTtlMs: number }): Promise<ConversationRecord>;
  /** Sets one attr of a conversation (creating it if absent). */
  setConversationAttr(id: string, key: string, value: string, idleTtlMs: number): Promise<void>;

  // ---- small records: aliases (external token → conversation id), MCP sessions, uploads ----
  /** Stores `value` under `namespace:id` for `ttlMs`. */
  putRecord(namespace: string, id: string, value: string, ttlMs: number): Promise<void>;
  /** Reads a record; when `touchTtlMs` is given its TTL is reset (sliding expiry). */
  getRecord(namespace: string, id: string, touchTtlMs?: number): Promise<string | null>;
  deleteRecord(namespace: string, id: string): Promise<void>;

  // ---- rate limits ----
  /** Counts a hit in the fixed window `windowMs` for `key`; returns the count in this window. */
  hit(key: string, windowMs: number): Promise<number>;

  // ---- lifecycle ----
  /** Resolves when the backend answers; rejects (STORE_UNAVAILABLE) when it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
