/**
 * The maps behind `MemoryStore`. A backend can be shared by several MemoryStore instances in one
 * process, so "two replicas over one store" (cancel pub/sub, claim races) is testable without
 * Redis and behaves like it.
 *
 * Expiry is real: every read drops an expired entry (lazy), and an unref'd sweep drops entries
 * nobody reads again, so memory stays bounded by what is live.
 */
import { EventEmitter } from 'node:events';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { LimiterCache, wrapLimiter } from './limiter.ts';
import { conversationOwner, DEFAULT_STORE_CAPS, ownedByVerified, type ConversationRecord, type PromiseRecord, type StoredBlob } from './store.ts';

/** A value with the epoch ms at which it stops existing. */
export interface Timed<T> {
  value: T;
  expiresAt: number;
}

export interface MemoryBackendOptions {
  /** How often expired entries nobody reads are dropped. Default 5000 ms. */
  sweepIntervalMs?: number;
  /** Conversations held at most; beyond it the least recently used goes. Default 50,000. */
  maxConversations?: number;
  /** Small records (aliases, sessions, task records) held at most, per class (verified, anonymous); beyond it the least recently used goes. Default 50,000. */
  maxRecords?: number;
  /** Conversations one owner (principal, or anonymous address) holds at most; past it its own oldest goes. Default 1,000. */
  maxConversationsPerOwner?: number;
}

/**
 * Least-recently-used order of keys in two classes (issue 24, hole 3): verified principals' state
 * and anonymous callers' state are capped apart, so anonymous traffic only ever pushes out anonymous
 * state. Each class holds at most `max`; the store's own map holds the values.
 */
class RetentionOrder {
  private readonly verified = new Set<string>();
  private readonly anonymous = new Set<string>();

  constructor(private readonly max: number) {}

  /** Marks `key` most recently used in its class; returns the keys its class drops past `max`. */
  touch(key: string, verified: boolean): string[] {
    const order = verified ? this.verified : this.anonymous;
    order.delete(key);
    order.add(key);
    const dropped: string[] = [];
    if (order.size <= this.max) return dropped;
    for (const oldest of order) {
      if (order.size <= this.max) break;
      order.delete(oldest);
      dropped.push(oldest);
    }
    return dropped;
  }

  forget(key: string): void {
    this.verified.delete(key);
    this.anonymous.delete(key);
  }

  /** Drops keys whose values are gone (expired and swept, or deleted). */
  prune(live: Map<string, unknown>): void {
    for (const order of [this.verified, this.anonymous]) for (const key of order) if (!live.has(key)) order.delete(key);
  }

  get size(): number {
    return this.verified.size + this.anonymous.size;
  }
}

/** Reads a live entry, deleting it when its time has passed (lazy expiry). */
export function liveEntry<T>(map: Map<string, Timed<T>>, key: string, now: number): Timed<T> | undefined {
  const entry = map.get(key);
  if (entry === undefined) return undefined;
  if (entry.expiresAt <= now) {
    map.delete(key);
    return undefined;
  }
  return entry;
}

/** In-process state shared by the MemoryStore instances attached to it (design.md "State"). */
export class MemoryBackend {
  readonly promises = new Map<string, Timed<PromiseRecord>>();
  /** token → leaseUntil of running promises: the memory twin of Redis's lease ZSET. */
  readonly leases = new Map<string, number>();
  readonly conversations = new Map<string, Timed<ConversationRecord>>();
  readonly records = new Map<string, Timed<string>>();
  /** Binary content (NLIP uploads): Buffers outside the JavaScript heap, bounded by the quotas, freed on expiry. */
  readonly blobs = new Map<string, Timed<StoredBlob>>();
  /** Quota scope → reservation id → amount (with its end): the memory twin of Redis's quota ZSETs. */
  readonly quotas = new Map<string, Map<string, Timed<number>>>();
  /** Rate limiters, shared by every store on this backend (each key expires with its window). */
  readonly limiters = new LimiterCache((name, points, duration) => wrapLimiter(new RateLimiterMemory({ keyPrefix: name, points, duration })));
  /** Cancel pub/sub: one 'cancel' event per published token. */
  readonly cancels = new EventEmitter();
  /** Topic pub/sub (Store.publishTopic): one event per message, named by its topic. */
  readonly topics = new EventEmitter();

  private readonly sweepIntervalMs: number;
  /**
   * Every first-turn ask starts a conversation that lives for `conversationIdleTtlMs` (a day by
   * default): without a cap, steady anonymous traffic grows the process without end (the bench's
   * RSS did), and each sweep walks all of it. Least recently used first, as Redis's `allkeys-lru`.
   */
  private readonly maxConversations: number;
  private readonly maxRecords: number;
  private readonly maxConversationsPerOwner: number;
  private readonly conversationOrder: RetentionOrder;
  private readonly recordOrder: RetentionOrder;
  /** Owner tag → that owner's conversation keys, least recently used first (its quota). */
  private readonly conversationsByOwner = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;
  private users = 0;

  constructor(options: MemoryBackendOptions = {}) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? 5000;
    this.maxConversations = options.maxConversations ?? DEFAULT_STORE_CAPS.maxConversations;
    this.maxRecords = options.maxRecords ?? DEFAULT_STORE_CAPS.maxRecords;
    this.maxConversationsPerOwner = options.maxConversationsPerOwner ?? DEFAULT_STORE_CAPS.maxConversationsPerOwner;
    this.conversationOrder = new RetentionOrder(this.maxConversations);
    this.recordOrder = new RetentionOrder(this.maxRecords);
    // Every attached store (and each of its onCancel handlers) listens: no leak warning for many.
    this.cancels.setMaxListeners(0);
    this.topics.setMaxListeners(0);
  }

  /** Called by each store using this backend: the first one starts the sweep. */
  attach(): void {
    this.users++;
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.sweepIntervalMs);
      // The sweep must never keep a process (or a test worker) alive on its own.
      this.timer.unref();
    }
  }

  /** Called by each store on close: the last one stops the sweep. */
  detach(): void {
    this.users = Math.max(0, this.users - 1);
    if (this.users === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Drops every expired entry; returns how many were dropped. */
  sweep(now = Date.now()): number {
    let dropped = 0;
    for (const map of [this.promises, this.conversations, this.records, this.blobs] as Array<Map<string, Timed<unknown>>>) {
      for (const [key, entry] of map) {
        if (entry.expiresAt <= now) {
          map.delete(key);
          dropped++;
        }
      }
    }
    for (const [key, reservations] of this.quotas) {
      for (const [id, entry] of reservations) {
        if (entry.expiresAt <= now) {
          reservations.delete(id);
          dropped++;
        }
      }
      if (reservations.size === 0) this.quotas.delete(key);
    }
    this.conversationOrder.prune(this.conversations);
    this.recordOrder.prune(this.records);
    for (const [owner, keys] of this.conversationsByOwner) {
      for (const key of keys) if (!this.conversations.has(key)) keys.delete(key);
      if (keys.size === 0) this.conversationsByOwner.delete(owner);
    }
    for (const token of this.leases.keys()) {
      if (!this.promises.has(token)) {
        this.leases.delete(token);
        dropped++;
      }
    }
    return dropped;
  }

  /**
   * Stores (or touches) a conversation as the most recently used: past `maxConversationsPerOwner`
   * its owner's own oldest goes, and past `maxConversations` the oldest of its class (verified or
   * anonymous, `ownedByVerified`): never another owner's because of this one, nor a verified
   * principal's because of anonymous traffic (issue 24, hole 3). Keys are `ownerTag:handle`.
   */
  keepConversation(id: string, entry: Timed<ConversationRecord>): void {
    this.conversations.set(id, entry);
    const owner = conversationOwner(id);
    let mine = this.conversationsByOwner.get(owner);
    if (!mine) this.conversationsByOwner.set(owner, (mine = new Set()));
    mine.delete(id);
    mine.add(id);
    const dropped: string[] = [];
    for (const oldest of mine) {
      if (mine.size - dropped.length <= this.maxConversationsPerOwner) break;
      dropped.push(oldest);
    }
    dropped.push(...this.conversationOrder.touch(id, ownedByVerified(id)));
    for (const key of dropped) this.dropConversation(key);
  }

  private dropConversation(key: string): void {
    this.conversations.delete(key);
    this.conversationOrder.forget(key);
    const owner = conversationOwner(key);
    const keys = this.conversationsByOwner.get(owner);
    keys?.delete(key);
    if (keys?.size === 0) this.conversationsByOwner.delete(owner);
  }

  /** Stores (or touches) a record as the most recently used, within `maxRecords` for its class (verified or anonymous). */
  keepRecord(key: string, entry: Timed<string>, verified: boolean): void {
    this.records.set(key, entry);
    for (const dropped of this.recordOrder.touch(key, verified)) this.records.delete(dropped);
  }

  /** Entries held right now, expired-but-unswept ones included (the bounded-growth test hook). */
  size(): number {
    let reservations = 0;
    for (const r of this.quotas.values()) reservations += r.size;
    return this.promises.size + this.leases.size + this.conversations.size + this.records.size + this.blobs.size + reservations;
  }

  /** The live total of a quota scope, dropping reservations whose time is up. */
  quotaUsed(key: string, now: number): number {
    const reservations = this.quotas.get(key);
    if (!reservations) return 0;
    let used = 0;
    for (const [id, entry] of reservations) {
      if (entry.expiresAt <= now) reservations.delete(id);
      else used += entry.value;
    }
    if (reservations.size === 0) this.quotas.delete(key);
    return used;
  }

  /** A live promise entry; an expired one is dropped together with its lease. */
  livePromise(token: string, now: number): Timed<PromiseRecord> | undefined {
    const entry = liveEntry(this.promises, token, now);
    if (entry === undefined) this.leases.delete(token);
    return entry;
  }
}
