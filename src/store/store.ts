/**
 * The store contract (design.md "State"). Two implementations pass one contract suite
 * (`contract.ts`): `MemoryStore` (embedded default) and `RedisStore` (replicas, restarts).
 *
 * Operations are domain-level so that each transition that can race is atomic in the backend
 * (a Lua script in Redis, a synchronous critical section in memory). Every key has a TTL.
 */
import type { CanonicalResponse } from '../protocol/nlweb/index.ts';
import type { Limiter } from './limiter.ts';

export type { Limiter, LimitDecision } from './limiter.ts';

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
  /**
   * Owner tag of the principal that created the promise (core/ownership.ts `ownerTag`): only that
   * principal may check in on or cancel it. A re-run on another replica keeps it.
   */
  principal?: string;
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
}

/**
 * The mark that starts the owner part of a key made for a verified principal (issue 24, hole 3):
 * owner tags of verified principals, their scoped handles and their MCP session ids begin with it,
 * so a store can tell their state from anonymous callers' and never let anonymous traffic push it
 * out. Keys are built by the gateway from verified identities, never by clients, so no client can
 * put its state in that class.
 */
export const VERIFIED_OWNER_MARK = 'p.';

/** Whether a stored id (a conversation key `tag:handle`, or a record id) belongs to a verified principal. */
export function ownedByVerified(id: string): boolean {
  return id.startsWith(VERIFIED_OWNER_MARK);
}

/**
 * How much state a store keeps (issue 24, hole 3), the same in every implementation: conversations
 * and small records are capped for verified principals and for anonymous callers each (least
 * recently used of that class first), and each owner's conversations apart (its own oldest first).
 */
export interface StoreCaps {
  /** Conversations held per class (verified, anonymous). */
  maxConversations: number;
  /** Small records (aliases, MCP sessions and tasks, A2A tasks, NLIP tokens, webtool sessions) held per class. */
  maxRecords: number;
  /** Conversations one owner (principal, or anonymous address) holds. */
  maxConversationsPerOwner: number;
  /** Records one owner holds in one namespace (its A2A tasks, its MCP sessions…), when written with their owner. */
  maxRecordsPerOwner: number;
}

/** The caps a store keeps when its config names none (config/schema.ts restates them as defaults). */
export const DEFAULT_STORE_CAPS: StoreCaps = { maxConversations: 50_000, maxRecords: 50_000, maxConversationsPerOwner: 1_000, maxRecordsPerOwner: 1_000 };

/** The owner part of a conversation id (`ownerTag:handle`); ids without one share the empty owner. */
export function conversationOwner(id: string): string {
  const colon = id.indexOf(':');
  return colon < 0 ? '' : id.slice(0, colon);
}

/**
 * Binary content with a little text beside it (NLIP uploads, issue 24): the bytes are kept as bytes
 * (a Buffer off the JavaScript heap in memory, a binary value in Redis), never re-encoded as text.
 * The store takes the bytes as given: the caller must not change them afterwards.
 */
export interface StoredBlob {
  meta: string;
  bytes: Uint8Array;
}

/** One turn to record in a conversation. */
export interface TurnRecord {
  query: string;
  agent: string;
  /** The upstream's `session_context` after this turn; absent leaves the stored one as it is. */
  upstreamSession?: Record<string, unknown>;
}

/** A small record to store (`putRecord`'s arguments), here written beside a conversation turn. */
export interface RecordWrite {
  namespace: string;
  id: string;
  value: string;
  ttlMs: number;
  /** The ownerTag it counts against (`putRecord` `owner`). */
  owner?: string;
}

/** Where a record names a conversation (Store.getRecordAndConversation). */
export interface ConversationLink {
  /**
   * The field of the record's JSON object whose string value is the conversation's handle (a 2025
   * MCP session's `conversationId`); absent: the record's whole value is the handle (an alias).
   */
  field?: string;
  /** The handle to read when the record is missing or names none (a webtool session's derived conversation). */
  fallback?: string;
  /** The owner tag whose namespace holds that conversation: its id is `<ownerTag>:<handle>`. */
  ownerTag: string;
  /** The conversation's idle TTL, refreshed by the read as getConversation refreshes it. */
  idleTtlMs: number;
}

/** A record and the conversation it names, read together. */
export interface LinkedRecord {
  record: string | null;
  /** Present when the record (or the link's fallback) names a conversation: its id, and what is stored under it (null: nothing). */
  conversation?: { id: string; record: ConversationRecord | null };
}

/** How much of a conversation a turn may leave behind. */
export interface TurnLimits {
  maxPrev: number;
  idleTtlMs: number;
  /** Total length of the kept previous queries (UTF-16 code units, as JavaScript counts); absent = no cap. */
  maxPrevTotalChars?: number;
}

/** One scope an amount is counted against (a principal's uploads, everyone's uploads) and its cap. */
export interface QuotaScope {
  key: string;
  limit: number;
}

export interface Store {
  readonly kind: 'memory' | 'redis';

  // ---- promises ----
  /** Stores a new running promise; its record lives `ttlMs`. Fails if the token exists. */
  createPromise(record: PromiseRecord, ttlMs: number): Promise<void>;
  /**
   * Reads a promise. With `principal` (an owner tag), a promise owned by another principal reads as
   * null, exactly like one that never existed (the check rides on the same read).
   */
  getPromise(token: string, principal?: string): Promise<PromiseRecord | null>;
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

  // ---- cross-replica messages to live streams (e.g. MCP notifications for a session's GET stream) ----
  /** Delivers `message` to every replica's `onTopic(topic)` handlers (this one included); nothing is kept. */
  publishTopic(topic: string, message: string): Promise<void>;
  /** Registers a handler for one topic; resolves once listening; returns an unsubscribe. */
  onTopic(topic: string, handler: (message: string) => void): Promise<() => Promise<void>>;

  // ---- conversations ----
  /** Reads a conversation and refreshes its idle TTL. */
  getConversation(id: string, idleTtlMs: number): Promise<ConversationRecord | null>;
  /**
   * Atomically appends a turn (creating the conversation if absent): the query joins `prev`
   * (keeping the last `maxPrev`, and dropping the oldest while the kept queries together are longer
   * than `maxPrevTotalChars` UTF-16 code units), the agent's upstream session is replaced when given.
   * Nothing is read back: the turn's caller has what it needs (issue 25: a reply to decode per ask).
   * With `record`, that small record is also stored exactly as `putRecord` stores it, in the same
   * operation: one Redis round trip where both live on one connection (a single Redis, Sentinel's
   * master); on a Cluster, where conversations and records live in different slots, the two writes
   * go out together. The two are not promised to be atomic together; each keeps its own caps.
   */
  recordTurn(id: string, turn: TurnRecord, opts: TurnLimits, record?: RecordWrite): Promise<void>;
  /** Sets one attr of a conversation (creating it if absent). */
  setConversationAttr(id: string, key: string, value: string, idleTtlMs: number): Promise<void>;

  // ---- small records: aliases (external token → conversation id), MCP sessions, task records ----
  /**
   * Stores `value` under `namespace:id` for `ttlMs`. `owner` (the ownerTag of the caller it was made
   * for) counts it against that owner's `maxRecordsPerOwner` in this namespace: past it the owner's
   * oldest written record there goes, nobody else's.
   */
  putRecord(namespace: string, id: string, value: string, ttlMs: number, owner?: string): Promise<void>;
  /** Reads a record; when `touchTtlMs` is given its TTL is reset (sliding expiry). */
  getRecord(namespace: string, id: string, touchTtlMs?: number): Promise<string | null>;
  /**
   * getRecord, and the conversation the record names (linked-read.ts `linkedHandle`: its JSON
   * `link.field`, or its whole value), else `link.fallback`, in `link.ownerTag`'s namespace, read as
   * getConversation reads it: one Redis round trip where both live on one connection (issue 25: a
   * 2025 MCP session's record, an alias), two in turn on a Cluster, where they live in different slots.
   */
  getRecordAndConversation(namespace: string, id: string, touchTtlMs: number | undefined, link: ConversationLink): Promise<LinkedRecord>;
  /**
   * Compare-and-set: writes `value` (its TTL now `ttlMs`) only while the record holds `expected`, or,
   * with `expected` null, only while there is none (a claim: of callers racing, one wins). A string
   * `expected` never creates a record, so a record deleted meanwhile stays deleted and a write made
   * meanwhile is not undone. Resolves whether it wrote. A claim counts the record against `owner` as
   * putRecord does; a replace leaves the record's place in its owner's order as it was.
   */
  replaceRecord(namespace: string, id: string, expected: string | null, value: string, ttlMs: number, owner?: string): Promise<boolean>;
  /** Deletes a record; `owner`, the one it was written for, frees its place in that owner's count at once. */
  deleteRecord(namespace: string, id: string, owner?: string): Promise<void>;

  // ---- blobs: binary content (NLIP uploads), bounded by the caller's quotas, not by maxRecords ----
  /** Stores `blob` under `namespace:id` for `ttlMs`; it is forgotten (its memory freed) when that time is up. */
  putBlob(namespace: string, id: string, blob: StoredBlob, ttlMs: number): Promise<void>;
  /** Reads a blob; null when unknown or expired. */
  getBlob(namespace: string, id: string): Promise<StoredBlob | null>;

  // ---- quotas (bytes held across replicas: NLIP uploads) ----
  /**
   * Atomically reserves `amount` under `id` in every scope until `ttlMs` from now, or in none when any
   * scope would go over its limit (returns false). Reservations end by themselves when their time is up.
   * Reserving an existing id again replaces its amount and end (a provisional charge made exact).
   */
  reserveQuota(scopes: readonly QuotaScope[], id: string, amount: number, ttlMs: number): Promise<boolean>;
  /** Ends a reservation early (the thing it accounted for was not kept after all). */
  releaseQuota(scopes: readonly QuotaScope[], id: string): Promise<void>;

  // ---- rate limits ----
  /**
   * The limiter named `name` allowing `points` requests per `durationMs` (whole seconds, at least
   * one) per key, shared by every replica on this backend. Keys expire with their window.
   */
  limiter(name: string, points: number, durationMs: number): Limiter;

  // ---- lifecycle ----
  /** Resolves when the backend answers; rejects (STORE_UNAVAILABLE) when it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
