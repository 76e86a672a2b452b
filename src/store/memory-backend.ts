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
import { RecordTable } from './memory-records.ts';
import { ConversationTable } from './memory-retention.ts';
import { DEFAULT_STORE_CAPS, type PromiseRecord, type StoredBlob } from './store.ts';

/** A value with the epoch ms at which it stops existing. */
export interface Timed<T> {
  value: T;
  expiresAt: number;
}

export interface MemoryBackendOptions {
  /** How often expired entries nobody reads are dropped. Default 5000 ms. */
  sweepIntervalMs?: number;
  /** Conversations held at most, per class (verified, anonymous); beyond it the least recently used goes. Default 50,000. */
  maxConversations?: number;
  /** Small records (aliases, sessions, task records) held at most, per class (verified, anonymous); beyond it the least recently used goes. Default 50,000. */
  maxRecords?: number;
  /** Conversations one owner (principal, or anonymous address) holds at most; past it its own oldest goes. Default 1,000. */
  maxConversationsPerOwner?: number;
  /** Records one owner holds at most in one namespace (its A2A tasks, its MCP sessions…); past it its own oldest goes. Default 1,000. */
  maxRecordsPerOwner?: number;
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
  /** Conversations, capped per class and per owner (memory-retention.ts). */
  readonly conversations: ConversationTable;
  /** Small records by `namespace:id`, capped per class and per owner (memory-records.ts). */
  readonly records: RecordTable;
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
  private timer: NodeJS.Timeout | undefined;
  private users = 0;

  constructor(options: MemoryBackendOptions = {}) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? 5000;
    // Every first-turn ask starts a conversation that lives for `conversationIdleTtlMs` (a day by
    // default): without caps, steady anonymous traffic grows the process without end (the bench's
    // RSS did), and each sweep walks all of it.
    this.conversations = new ConversationTable(
      options.maxConversations ?? DEFAULT_STORE_CAPS.maxConversations,
      options.maxConversationsPerOwner ?? DEFAULT_STORE_CAPS.maxConversationsPerOwner,
    );
    this.records = new RecordTable(options.maxRecords ?? DEFAULT_STORE_CAPS.maxRecords, options.maxRecordsPerOwner ?? DEFAULT_STORE_CAPS.maxRecordsPerOwner);
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
    let dropped = this.conversations.sweep(now) + this.records.sweep(now);
    for (const map of [this.promises, this.blobs] as Array<Map<string, Timed<unknown>>>) {
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
    for (const token of this.leases.keys()) {
      if (!this.promises.has(token)) {
        this.leases.delete(token);
        dropped++;
      }
    }
    return dropped;
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
