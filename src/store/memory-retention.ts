/**
 * What the memory store keeps of conversations and small records, and how much (issue 24, hole 3):
 * verified principals' entries and anonymous callers' are capped apart, each class least recently
 * used first, and each owner's conversations apart (its own oldest first), so anonymous traffic
 * only ever recycles anonymous state and no owner recycles another's.
 *
 * Small by construction (issue 23 item 4): a class is one Map whose insertion order IS its
 * least-recently-used order (a touch re-inserts), not a Map plus an order Set; an owner with one
 * conversation is one string, not a Set of one; and a held conversation keeps only what it has.
 */
import { EXACT_BELOW, OldestFirst, OwnedKeys, SETTLED_MOVES, settledMoves } from './owned-keys.ts';
import { conversationOwner, ownedByVerified } from './store.ts';

/** A stored value with the epoch ms at which it stops existing. */
export interface Expiring {
  expiresAt: number;
  /** RetainedMap's own: its class's move count when the entry last went to the newest end. */
  moved?: number;
}

// Defined beside OwnedKeys, whose owners settle by the same rule; exported here as before.
export { EXACT_BELOW, SETTLED_MOVES, settledMoves };

/**
 * A conversation as the memory store holds it: no id (the key is), no timestamps (the idle TTL is
 * `expiresAt`), and nothing it does not have: a first turn is one string in `prev` and nothing else.
 */
export class HeldConversation implements Expiring {
  /** RetainedMap's move stamp (declared here so every held conversation has one shape). */
  moved: number | undefined = undefined;
  /** The previous queries, oldest first: one as a string, more as an array, none as undefined. */
  prev: string | string[] | undefined = undefined;
  /** The `session_context` each upstream agent returned last, by agent name, once there is one. */
  upstream: Record<string, Record<string, unknown>> | undefined = undefined;
  /** Binding- and adapter-private values, once there is one. */
  attrs: Record<string, string> | undefined = undefined;
  constructor(public expiresAt: number) {}

  /** The previous queries, oldest first, as an array of the caller's own. */
  queries(): string[] {
    return this.prev === undefined ? [] : typeof this.prev === 'string' ? [this.prev] : [...this.prev];
  }

  /** Keeps `queries` in their smallest shape. */
  keepQueries(queries: string[]): void {
    this.prev = queries.length === 0 ? undefined : queries.length === 1 ? queries[0] : queries;
  }
}

/**
 * Entries in two classes (verified, anonymous), each a Map in least-recently-used order holding at
 * most `max`. `onDrop` hears every key that leaves other than by `delete` (expired, or pushed out).
 *
 * A touch moves the entry to the newest end (delete, then set), except in a class of EXACT_BELOW
 * entries or more when the entry was moved within the last SETTLED_MOVES moves of its class. V8
 * leaves a deleted Map entry in its bucket's chain until the table is rebuilt, so one key deleted
 * and set again and again makes its own chain longer with every touch: in a class of 50,000 one hot
 * key cost 84 µs a touch (a 2025 MCP session's record, a conversation read and then written; issue
 * 25). So the order is exact to `settledMoves(max)` positions (64, or 1/32 of a larger class): a
 * key touched within the last `max - settledMoves(max) - 1` moves is never pushed out (exact LRU:
 * `max - 1`). Small classes, and the tests' caps, keep the exact order.
 */
export class RetainedMap<V extends Expiring> {
  private readonly verified = new Map<string, V>();
  private readonly anonymous = new Map<string, V>();
  private readonly oldestVerified = new OldestFirst(() => this.verified.keys());
  private readonly oldestAnonymous = new OldestFirst(() => this.anonymous.keys());
  /** Moves to the newest end so far, per class (the stamps' clock). */
  private movesVerified = 0;
  private movesAnonymous = 0;

  constructor(
    private readonly max: number,
    private readonly onDrop?: (key: string, entry: V) => void,
  ) {}

  /** The live entry of `key`; an expired one is dropped (lazy expiry). */
  live(key: string, verified: boolean, now: number): V | undefined {
    const map = verified ? this.verified : this.anonymous;
    const entry = map.get(key);
    if (entry === undefined || entry.expiresAt > now) return entry;
    map.delete(key);
    this.onDrop?.(key, entry);
    return undefined;
  }

  /** Stores (or touches) `key` as the most recently used of its class; past `max` the least recently used go. */
  keep(key: string, verified: boolean, entry: V): void {
    const map = verified ? this.verified : this.anonymous;
    const moves = verified ? this.movesVerified : this.movesAnonymous;
    // Settled: moved a moment ago and still the one held (a new value always moves).
    if (map.size >= EXACT_BELOW && entry.moved !== undefined && moves - entry.moved < settledMoves(map.size) && map.get(key) === entry) return;
    map.delete(key);
    map.set(key, entry);
    entry.moved = moves + 1;
    if (verified) this.movesVerified = moves + 1;
    else this.movesAnonymous = moves + 1;
    const oldestFirst = verified ? this.oldestVerified : this.oldestAnonymous;
    while (map.size > this.max) {
      const oldest = oldestFirst.take()!;
      const gone = map.get(oldest)!;
      map.delete(oldest);
      this.onDrop?.(oldest, gone);
    }
  }

  delete(key: string, verified: boolean): boolean {
    return (verified ? this.verified : this.anonymous).delete(key);
  }

  /** The entry of `key` as held, expired or not (no lazy expiry, no touch). */
  peek(key: string, verified: boolean): V | undefined {
    return (verified ? this.verified : this.anonymous).get(key);
  }

  /** Drops every expired entry; returns how many. */
  sweep(now: number): number {
    let dropped = 0;
    for (const map of [this.verified, this.anonymous]) {
      for (const [key, entry] of map) {
        if (entry.expiresAt > now) continue;
        map.delete(key);
        this.onDrop?.(key, entry);
        dropped++;
      }
    }
    return dropped;
  }

  get size(): number {
    return this.verified.size + this.anonymous.size;
  }

  *values(): IterableIterator<V> {
    yield* this.verified.values();
    yield* this.anonymous.values();
  }
}

/**
 * The conversations of a memory store: per class (`ownedByVerified`) at most `maxConversations`,
 * per owner (`conversationOwner`) at most `maxPerOwner`, least recently used first. Keys are
 * `ownerTag:handle`.
 */
export class ConversationTable {
  private readonly held: RetainedMap<HeldConversation>;
  /** Each owner's conversations, least recently used first. */
  private readonly owned: OwnedKeys;

  constructor(maxConversations: number, maxPerOwner: number) {
    this.held = new RetainedMap(maxConversations, (id) => this.owned.forget(conversationOwner(id), id));
    this.owned = new OwnedKeys(maxPerOwner, (id) => this.held.delete(id, ownedByVerified(id)));
  }

  live(id: string, now: number): HeldConversation | undefined {
    return this.held.live(id, ownedByVerified(id), now);
  }

  /**
   * Stores (or touches) a conversation as its owner's and its class's most recently used. The owner's
   * quota is kept first, so a conversation its owner recycles leaves room in the class, as in Redis.
   */
  keep(id: string, entry: HeldConversation): void {
    this.owned.add(conversationOwner(id), id);
    this.held.keep(id, ownedByVerified(id), entry);
  }

  sweep(now: number): number {
    return this.held.sweep(now);
  }

  get size(): number {
    return this.held.size;
  }
}
