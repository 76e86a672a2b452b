/** Keys in oldest-first order for the memory store's retention (memory-retention.ts, memory-records.ts). */

/**
 * The oldest key of a Map or Set (insertion order: least recently used first), in amortized O(1).
 * `keys().next()` starts at the front every time, and V8 leaves a deleted entry's slot there until
 * the table is rebuilt: at a 50,000-entry cap, pushing one out stepped over up to ~15,000 empty
 * slots, 13 µs per write (issue 25). An iterator kept between calls steps over each slot once; it
 * is correct because every key it has passed was taken (and deleted) by the caller, and keys that
 * are added or touched go to the end, ahead of it.
 */
export class OldestFirst<K> {
  private cursor: Iterator<K> | undefined;

  constructor(private readonly keys: () => Iterator<K>) {}

  /** The oldest key, which the caller then deletes; undefined when empty. */
  take(): K | undefined {
    let step = this.cursor?.next();
    if (!step || step.done) {
      this.cursor = this.keys();
      step = this.cursor.next();
    }
    return step.done ? undefined : step.value;
  }
}

/**
 * A class holding fewer entries than this moves an entry on every touch (exact least-recently-used
 * order): below it a move costs well under a microsecond even for one key touched over and over.
 */
export const EXACT_BELOW = 256;
/**
 * At or above EXACT_BELOW, a touch within this many moves of the entry's last one leaves it in
 * place, or within 1/32 of the class's size when that is more (a few hot keys among many).
 */
export const SETTLED_MOVES = 64;

/** The settled window of a class of `size` entries (SETTLED_MOVES). */
export const settledMoves = (size: number): number => Math.max(SETTLED_MOVES, size >> 5);

/** The keys of an owner that has several: each with the owner's move count when it last moved. */
interface ManyKeys {
  keys: Map<string, number>;
  moves: number;
}

/**
 * Each owner's keys, oldest first, at most `maxPerOwner` (issue 24, hole 3): the conversations of
 * one owner, and the records of one owner in one namespace. An owner past its quota gives up its
 * own oldest key, never another owner's. Small by construction (issue 23 item 4): an owner with
 * one key is one string, not a collection of one.
 *
 * A touch moves the key to the newest end, except in an owner of EXACT_BELOW keys or more when the
 * key moved within the last `settledMoves` moves of that owner, as in RetainedMap and for the same
 * reason: V8 leaves a deleted entry in its bucket's chain until the table is rebuilt, so one key
 * deleted and added again and again lengthens its own chain. An MCP session's conversation, touched
 * twice a call in an owner of 1,000 conversations, cost 1.2 µs a touch against 0.06–0.09 for a key
 * touched once in a while (issue 25). So the order is exact to `settledMoves` positions: a key
 * touched within the owner's last `maxPerOwner - settledMoves(maxPerOwner) - 1` moves is never given up.
 */
export class OwnedKeys {
  /** Owner → its key, or its keys oldest first once it has several. */
  private readonly byOwner = new Map<string, string | ManyKeys>();
  private readonly cursors = new WeakMap<ManyKeys, OldestFirst<string>>();

  /** `drop` removes a key the owner gave up from the table that holds it. */
  constructor(
    private readonly maxPerOwner: number,
    private readonly drop: (key: string) => void,
  ) {}

  /** Makes `key` its owner's newest (see the class's comment); past the owner's quota its oldest keys are dropped. */
  add(owner: string, key: string): void {
    const mine = this.byOwner.get(owner);
    if (mine === undefined || mine === key) {
      this.byOwner.set(owner, key);
    } else if (typeof mine === 'string') {
      this.byOwner.set(owner, { keys: new Map([[mine, 1], [key, 2]]), moves: 2 });
      if (this.maxPerOwner < 2) this.giveUp(owner, mine);
    } else {
      const { keys } = mine;
      const moved = keys.get(key);
      if (moved !== undefined && keys.size >= EXACT_BELOW && mine.moves - moved < settledMoves(keys.size)) return;
      keys.delete(key);
      keys.set(key, ++mine.moves);
      if (keys.size > this.maxPerOwner) {
        // Only an owner at its quota gets a cursor (held as long as its keys are).
        let oldestFirst = this.cursors.get(mine);
        if (!oldestFirst) this.cursors.set(mine, (oldestFirst = new OldestFirst(() => keys.keys())));
        while (keys.size > this.maxPerOwner) this.giveUp(owner, oldestFirst.take()!);
      }
    }
  }

  /** A key that left its table (expired, deleted, or pushed out of its class) leaves its owner's order. */
  forget(owner: string, key: string): void {
    const mine = this.byOwner.get(owner);
    if (mine === key) {
      this.byOwner.delete(owner);
    } else if (typeof mine === 'object') {
      mine.keys.delete(key);
      // Back to one string: an owner that had many and now has one costs what one costs.
      if (mine.keys.size === 0) this.byOwner.delete(owner);
      else if (mine.keys.size === 1) this.byOwner.set(owner, mine.keys.keys().next().value as string);
    }
  }

  /** Owners holding at least one key (the bounded-growth tests' hook). */
  get owners(): number {
    return this.byOwner.size;
  }

  private giveUp(owner: string, key: string): void {
    this.forget(owner, key);
    this.drop(key);
  }
}
