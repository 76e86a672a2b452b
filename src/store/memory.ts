/**
 * The embedded store (design.md "State"): everything in process, nothing to set up. One replica
 * only — unless several MemoryStore instances share one `MemoryBackend` in the same process
 * (the contract suite's "two replicas").
 *
 * Atomicity: every transition is one synchronous block with no `await` inside, so on Node's one
 * thread it cannot interleave with another transition — the memory twin of a Redis Lua script.
 * Values are copied in and out as JSON, so callers cannot mutate stored state and what comes back
 * is exactly what Redis would give back.
 */
import { GatewayError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';
import { MemoryBackend, liveEntry, type Timed } from './memory-backend.ts';
import { MemoryPubSub } from './memory-pubsub.ts';
import { HeldConversation } from './memory-retention.ts';
import { keepPrev } from './prev.ts';
import type { Limiter } from './limiter.ts';
import { linkedConversationOf } from './linked-read.ts';
import { type ConversationLink, type ConversationRecord, type LinkedRecord, type PromiseRecord, type QuotaScope, type RecordWrite, type Settlement, type StoredBlob, type Store, type TurnLimits, type TurnRecord } from './store.ts';

export { MemoryBackend } from './memory-backend.ts';

export interface MemoryStoreOptions {
  /** Share one backend between stores to model several replicas in one process. */
  backend?: MemoryBackend;
  /** Sweep interval of a backend this store creates itself. Default 5000 ms. */
  sweepIntervalMs?: number;
  /** Caps of a backend this store creates itself (MemoryBackendOptions). */
  maxConversations?: number;
  maxRecords?: number;
  maxConversationsPerOwner?: number;
  maxRecordsPerOwner?: number;
  log?: Logger;
}

type PromisePatch = Parameters<Store['updatePromise']>[2];

/** Copies a JSON-shaped value the way a round trip through Redis would (undefined fields dropped). */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A held conversation as a caller may keep it: its own arrays and maps, so nothing it changes
 * reaches the store. Only the upstream sessions (arbitrary JSON) take the JSON round trip, and only
 * when present: a whole-record round trip was 8 µs of every ask (bench/layers.ts profile).
 */
function readConversation(id: string, held: HeldConversation): ConversationRecord {
  return {
    id,
    prev: held.queries(),
    upstream: held.upstream ? copy(held.upstream) : {},
    attrs: held.attrs ? { ...held.attrs } : {},
  };
}

/** The in-process `Store` (design.md "State"): TTLs, atomic transitions, cancel fan-out. */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly backend: MemoryBackend;
  private readonly pubsub: MemoryPubSub;
  private closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.backend = options.backend ?? new MemoryBackend({ sweepIntervalMs: options.sweepIntervalMs, maxConversations: options.maxConversations, maxRecords: options.maxRecords, maxConversationsPerOwner: options.maxConversationsPerOwner, maxRecordsPerOwner: options.maxRecordsPerOwner });
    this.pubsub = new MemoryPubSub(options.log);
    this.backend.attach();
  }

  // ---- promises ----

  async createPromise(record: PromiseRecord, ttlMs: number): Promise<void> {
    const now = Date.now();
    if (this.backend.livePromise(record.token, now)) {
      throw new GatewayError('INTERNAL_ERROR', 'A promise with this token already exists');
    }
    this.backend.promises.set(record.token, { value: copy(record), expiresAt: now + ttlMs });
    if (record.status === 'running') this.backend.leases.set(record.token, record.leaseUntil);
  }

  async getPromise(token: string, principal?: string): Promise<PromiseRecord | null> {
    const entry = this.backend.livePromise(token, Date.now());
    if (!entry || (principal !== undefined && entry.value.principal !== principal)) return null;
    return copy(entry.value);
  }

  async settlePromise(token: string, settlement: Settlement, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const entry = this.backend.livePromise(token, now);
    if (!entry || entry.value.status !== 'running') return false;
    entry.value.status = settlement.status;
    entry.value.response = copy(settlement.response);
    entry.value.updatedAt = now;
    entry.expiresAt = now + ttlMs;
    this.backend.leases.delete(token);
    return true;
  }

  async updatePromise(token: string, owner: string, patch: PromisePatch): Promise<boolean> {
    const now = Date.now();
    const entry = this.ownedRunning(token, owner, now);
    if (!entry) return false;
    for (const [field, value] of Object.entries(copy(patch))) {
      (entry.value as unknown as Record<string, unknown>)[field] = value;
    }
    entry.value.updatedAt = now;
    return true;
  }

  async renewLease(token: string, owner: string, leaseUntil: number): Promise<boolean> {
    const now = Date.now();
    const entry = this.ownedRunning(token, owner, now);
    if (!entry) return false;
    entry.value.leaseUntil = leaseUntil;
    entry.value.updatedAt = now;
    this.backend.leases.set(token, leaseUntil);
    return true;
  }

  async expiredLeases(now: number, limit: number): Promise<string[]> {
    const found: Array<[string, number]> = [];
    for (const [token, leaseUntil] of this.backend.leases) {
      if (leaseUntil < now && this.backend.livePromise(token, Date.now())) found.push([token, leaseUntil]);
    }
    // Oldest lease first, as Redis's ZRANGEBYSCORE returns them.
    found.sort((a, b) => a[1] - b[1]);
    return found.slice(0, Math.max(0, limit)).map(([token]) => token);
  }

  async releaseLeases(tokens: readonly string[], owner: string): Promise<string[]> {
    const released: string[] = [];
    for (const token of tokens) {
      const entry = this.ownedRunning(token, owner, Date.now());
      if (!entry) continue;
      entry.value.leaseUntil = 0;
      this.backend.leases.set(token, 0);
      released.push(token);
    }
    return released;
  }

  async claimExpiredLease(token: string, newOwner: string, leaseUntil: number, now: number): Promise<PromiseRecord | null> {
    const entry = this.backend.livePromise(token, Date.now());
    if (!entry || entry.value.status !== 'running' || entry.value.leaseUntil >= now) return null;
    entry.value.owner = newOwner;
    entry.value.leaseUntil = leaseUntil;
    entry.value.updatedAt = Date.now();
    this.backend.leases.set(token, leaseUntil);
    return copy(entry.value);
  }

  async expirePromise(token: string, ttlMs: number): Promise<void> {
    const now = Date.now();
    const entry = this.backend.livePromise(token, now);
    // Only a settled promise is shortened, and only ever shortened (never extended).
    if (!entry || entry.value.status === 'running') return;
    entry.expiresAt = Math.min(entry.expiresAt, now + ttlMs);
  }

  // ---- cross-replica cancel and topics (memory-pubsub.ts) ----

  async publishCancel(token: string): Promise<void> {
    this.pubsub.publish(this.backend.cancels, 'cancel', token);
  }

  async onCancel(handler: (token: string) => void): Promise<() => Promise<void>> {
    return this.pubsub.subscribe(this.backend.cancels, 'cancel', handler, 'cancel');
  }

  async publishTopic(topic: string, message: string): Promise<void> {
    await this.ping();
    this.pubsub.publish(this.backend.topics, topic, message);
  }

  async onTopic(topic: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    await this.ping();
    return this.pubsub.subscribe(this.backend.topics, topic, handler, 'topic');
  }

  // ---- conversations ----

  async getConversation(id: string, idleTtlMs: number): Promise<ConversationRecord | null> {
    return this.conversationNow(id, idleTtlMs);
  }

  /** getConversation's read, synchronous (the memory store's reads are). */
  private conversationNow(id: string, idleTtlMs: number): ConversationRecord | null {
    const now = Date.now();
    const held = this.backend.conversations.live(id, now);
    if (!held) return null;
    held.expiresAt = now + idleTtlMs;
    this.backend.conversations.keep(id, held);
    return readConversation(id, held);
  }

  async recordTurn(id: string, turn: TurnRecord, opts: TurnLimits, record?: RecordWrite): Promise<void> {
    const held = this.conversation(id, opts.idleTtlMs);
    held.keepQueries(keepPrev([...held.queries(), turn.query], opts.maxPrev, opts.maxPrevTotalChars));
    if (turn.upstreamSession !== undefined) (held.upstream ??= {})[turn.agent] = copy(turn.upstreamSession);
    if (record) this.writeRecord(record);
  }

  async setConversationAttr(id: string, key: string, value: string, idleTtlMs: number): Promise<void> {
    (this.conversation(id, idleTtlMs).attrs ??= {})[key] = value;
  }

  // ---- blobs ----

  async putBlob(namespace: string, id: string, blob: StoredBlob, ttlMs: number): Promise<void> {
    this.backend.blobs.set(`${namespace}:${id}`, { value: blob, expiresAt: Date.now() + ttlMs });
  }

  async getBlob(namespace: string, id: string): Promise<StoredBlob | null> {
    return liveEntry(this.backend.blobs, `${namespace}:${id}`, Date.now())?.value ?? null;
  }

  // ---- small records ----

  async putRecord(namespace: string, id: string, value: string, ttlMs: number, owner?: string): Promise<void> {
    this.writeRecord({ namespace, id, value, ttlMs, ...(owner !== undefined ? { owner } : {}) });
  }

  private writeRecord({ namespace, id, value, ttlMs, owner }: RecordWrite): void {
    this.backend.records.write(namespace, `${namespace}:${id}`, id, value, Date.now() + ttlMs, owner);
  }

  async getRecord(namespace: string, id: string, touchTtlMs?: number): Promise<string | null> {
    return this.recordNow(namespace, id, touchTtlMs);
  }

  /** getRecord's read, synchronous. */
  private recordNow(namespace: string, id: string, touchTtlMs?: number): string | null {
    const now = Date.now();
    const key = `${namespace}:${id}`;
    const entry = this.backend.records.live(key, id, now);
    if (!entry) return null;
    if (touchTtlMs !== undefined) entry.expiresAt = now + touchTtlMs;
    this.backend.records.touch(key, id, entry);
    return entry.value;
  }

  /**
   * Both reads with nothing between them: one promise, where the two reads in turn
   * (linked-read.ts `readLinkedInTurn`) made five (issue 25; an MCP session's call and an A2A
   * task's continuation read this way).
   */
  async getRecordAndConversation(namespace: string, id: string, touchTtlMs: number | undefined, link: ConversationLink): Promise<LinkedRecord> {
    const record = this.recordNow(namespace, id, touchTtlMs);
    const conversationId = linkedConversationOf(record, link);
    if (conversationId === null) return { record };
    return { record, conversation: { id: conversationId, record: this.conversationNow(conversationId, link.idleTtlMs) } };
  }

  async replaceRecord(namespace: string, id: string, expected: string | null, value: string, ttlMs: number, owner?: string): Promise<boolean> {
    const now = Date.now();
    const key = `${namespace}:${id}`;
    const entry = this.backend.records.live(key, id, now);
    if ((entry?.value ?? null) !== expected) return false;
    // A claim creates the record, counted against its owner; a replace keeps the record's place there.
    this.backend.records.write(namespace, key, id, value, now + ttlMs, expected === null ? owner : undefined);
    return true;
  }

  async deleteRecord(namespace: string, id: string, _owner?: string): Promise<void> {
    // The memory store knows each record's owner group from the record itself.
    this.backend.records.delete(`${namespace}:${id}`, id);
  }

  // ---- quotas ----

  async reserveQuota(scopes: readonly QuotaScope[], id: string, amount: number, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    // Reserving an id again replaces its amount: the old one does not count against the new.
    const held = (key: string) => this.backend.quotas.get(key)?.get(id)?.value ?? 0;
    if (scopes.some((s) => this.backend.quotaUsed(s.key, now) - held(s.key) + amount > s.limit)) return false;
    for (const s of scopes) {
      let reservations = this.backend.quotas.get(s.key);
      if (!reservations) this.backend.quotas.set(s.key, (reservations = new Map()));
      reservations.set(id, { value: amount, expiresAt: now + ttlMs });
    }
    return true;
  }

  async releaseQuota(scopes: readonly QuotaScope[], id: string): Promise<void> {
    for (const s of scopes) {
      const reservations = this.backend.quotas.get(s.key);
      reservations?.delete(id);
      if (reservations?.size === 0) this.backend.quotas.delete(s.key);
    }
  }

  // ---- rate limits ----

  limiter(name: string, points: number, durationMs: number): Limiter {
    return this.backend.limiters.get(name, points, durationMs);
  }

  // ---- lifecycle ----

  async ping(): Promise<void> {
    if (this.closed) throw new GatewayError('STORE_UNAVAILABLE', 'The state store is unavailable', { retryAfter: 1 });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pubsub.close();
    this.backend.detach();
  }

  /** Test hook: entries held by the backend, expired-but-unswept ones included. */
  size(): number {
    return this.backend.size();
  }

  private ownedRunning(token: string, owner: string, now: number): Timed<PromiseRecord> | undefined {
    const entry = this.backend.livePromise(token, now);
    return entry && entry.value.status === 'running' && entry.value.owner === owner ? entry : undefined;
  }

  /** The live conversation `id` (created when absent), its idle TTL refreshed and marked most recently used. */
  private conversation(id: string, idleTtlMs: number): HeldConversation {
    const now = Date.now();
    const held = this.backend.conversations.live(id, now) ?? new HeldConversation(0);
    held.expiresAt = now + idleTtlMs;
    this.backend.conversations.keep(id, held);
    return held;
  }
}
