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
 * Each owner's keys, oldest first, at most `maxPerOwner` (issue 24, hole 3): the conversations of
 * one owner, and the records of one owner in one namespace. An owner past its quota gives up its
 * own oldest key, never another owner's. Small by construction (issue 23 item 4): an owner with
 * one key is one string, not a Set of one.
 */
export class OwnedKeys {
  /** Owner → its key, or its keys oldest first once it has several. */
  private readonly byOwner = new Map<string, string | Set<string>>();
  private readonly cursors = new WeakMap<Set<string>, OldestFirst<string>>();

  /** `drop` removes a key the owner gave up from the table that holds it. */
  constructor(
    private readonly maxPerOwner: number,
    private readonly drop: (key: string) => void,
  ) {}

  /** Makes `key` its owner's newest; past the owner's quota its oldest keys are dropped. */
  add(owner: string, key: string): void {
    const mine = this.byOwner.get(owner);
    if (mine === undefined || mine === key) {
      this.byOwner.set(owner, key);
    } else if (typeof mine === 'string') {
      this.byOwner.set(owner, new Set([mine, key]));
      if (this.maxPerOwner < 2) this.giveUp(owner, mine);
    } else {
      mine.delete(key);
      mine.add(key);
      if (mine.size > this.maxPerOwner) {
        // Only an owner at its quota gets a cursor (held as long as its Set is).
        let oldestFirst = this.cursors.get(mine);
        if (!oldestFirst) this.cursors.set(mine, (oldestFirst = new OldestFirst(() => mine.values())));
        while (mine.size > this.maxPerOwner) this.giveUp(owner, oldestFirst.take()!);
      }
    }
  }

  /** A key that left its table (expired, deleted, or pushed out of its class) leaves its owner's order. */
  forget(owner: string, key: string): void {
    const mine = this.byOwner.get(owner);
    if (mine === key) {
      this.byOwner.delete(owner);
    } else if (typeof mine === 'object') {
      mine.delete(key);
      // Back to one string: an owner that had many and now has one costs what one costs.
      if (mine.size === 0) this.byOwner.delete(owner);
      else if (mine.size === 1) this.byOwner.set(owner, mine.values().next().value as string);
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
