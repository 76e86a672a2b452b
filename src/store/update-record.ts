import type { Store } from './store.ts';

/** How often an update reads a record again after another writer changed it first (each try is a round trip or two). */
export const MAX_UPDATE_ATTEMPTS = 4;

/** A record's value as read, with the stored text a compare-and-set of it compares against. */
export interface RecordState<T> {
  value: T;
  raw: string;
}

/** How a caller reads its records (null: damaged, or not the caller's) and writes them. */
export interface RecordCodec<T> {
  read(raw: string): T | null;
  write(value: T): string;
}

/**
 * Changes record `namespace:id` by compare-and-set (Store.replaceRecord) from `from`, its state as
 * the caller read it (null: read it now). `change` makes the next value from the stored one, or null
 * to leave it. When another writer changed the record first it is read again and `change` asked
 * again, at most MAX_UPDATE_ATTEMPTS times, so concurrent changes keep each other's and a record
 * deleted or expired meanwhile is never written back. Resolves the record as it now stands and
 * whether it holds this change; null when it is gone or not the caller's (`codec.read` said null).
 */
export async function updateRecord<T>(
  store: Store,
  namespace: string,
  id: string,
  from: RecordState<T> | null,
  codec: RecordCodec<T>,
  change: (current: T) => T | null | Promise<T | null>,
  ttlMs: number,
): Promise<{ now: RecordState<T>; changed: boolean } | null> {
  let current = from ?? (await readState(store, namespace, id, codec));
  for (let attempt = 0; current !== null && attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
    const next = await change(current.value);
    if (next === null) return { now: current, changed: false };
    const raw = codec.write(next);
    if (await store.replaceRecord(namespace, id, current.raw, raw, ttlMs)) return { now: { value: next, raw }, changed: true };
    current = await readState(store, namespace, id, codec);
  }
  return current && { now: current, changed: false };
}

async function readState<T>(store: Store, namespace: string, id: string, codec: RecordCodec<T>): Promise<RecordState<T> | null> {
  const raw = await store.getRecord(namespace, id);
  const value = raw === null ? null : codec.read(raw);
  return value === null ? null : { value, raw: raw! };
}
