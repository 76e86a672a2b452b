/**
 * The small records of a memory store (aliases, MCP sessions and tasks, A2A tasks): per class
 * (`ownedByVerified`) at most `maxRecords`, least recently used first, and the records one owner
 * made in one namespace at most `maxPerOwner`, its oldest written first. Without the second cap one
 * anonymous address sending SendMessage after SendMessage filled the whole anonymous class with its
 * A2A tasks (each up to 64 KiB), pushing out every other anonymous caller's sessions and tasks:
 * 42,000 tasks held 45 MiB of one replica's heap after `npm run bench`.
 */
import { type Expiring, RetainedMap } from './memory-retention.ts';
import { OwnedKeys } from './owned-keys.ts';
import { ownedByVerified } from './store.ts';

/** A record as held: its text, and the owner group it counts against when it was written for one. */
export interface HeldRecord extends Expiring {
  value: string;
  /** `namespace` NUL `ownerTag` of the record's owner (Store.putRecord `owner`), when it has one. */
  group?: string;
}

/** The records of one memory backend, capped per class and per owner and namespace (see the file's comment). */
export class RecordTable {
  private readonly held: RetainedMap<HeldRecord>;
  private readonly owned: OwnedKeys;

  constructor(maxRecords: number, maxPerOwner: number) {
    this.held = new RetainedMap(maxRecords, (key, entry) => {
      if (entry.group !== undefined) this.owned.forget(entry.group, key);
    });
    this.owned = new OwnedKeys(maxPerOwner, (key) => {
      if (!this.held.delete(key, false)) this.held.delete(key, true);
    });
  }

  /** The live record `namespace:id`; an expired one is dropped. */
  live(key: string, id: string, now: number): HeldRecord | undefined {
    return this.held.live(key, ownedByVerified(id), now);
  }

  /**
   * Writes record `key` (`namespace:id`) as its class's most recently used and, with an owner, as
   * that owner's newest in the namespace: past either cap the oldest go, never this one.
   */
  write(namespace: string, key: string, id: string, value: string, expiresAt: number, owner: string | undefined): void {
    const verified = ownedByVerified(id);
    const before = this.held.peek(key, verified);
    const group = owner === undefined ? before?.group : `${namespace}\u0000${owner}`;
    if (before?.group !== undefined && before.group !== group) this.owned.forget(before.group, key);
    const entry: HeldRecord = group === undefined ? { value, expiresAt } : { value, expiresAt, group };
    // The owner's quota first, so a record its owner recycles leaves room in the class.
    if (owner !== undefined) this.owned.add(group!, key);
    this.held.keep(key, verified, entry);
  }

  /** Marks a live record used in its class (its expiry as the caller set it); its owner's order is by write. */
  touch(key: string, id: string, entry: HeldRecord): void {
    this.held.keep(key, ownedByVerified(id), entry);
  }

  delete(key: string, id: string): void {
    const verified = ownedByVerified(id);
    const entry = this.held.peek(key, verified);
    if (entry?.group !== undefined) this.owned.forget(entry.group, key);
    this.held.delete(key, verified);
  }

  sweep(now: number): number {
    return this.held.sweep(now);
  }

  get size(): number {
    return this.held.size;
  }

  /** Every record held, expired-but-unswept ones included (tests read what the store holds). */
  values(): IterableIterator<HeldRecord> {
    return this.held.values();
  }

  /** Owner groups holding a record (the bounded-growth tests' hook). */
  get ownerGroups(): number {
    return this.owned.owners;
  }
}
