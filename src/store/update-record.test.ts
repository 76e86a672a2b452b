import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory.ts';
import { MAX_UPDATE_ATTEMPTS, updateRecord, type RecordCodec } from './update-record.ts';

type Counts = Record<string, number>;
const codec: RecordCodec<Counts> = {
  read: (raw) => {
    const value = JSON.parse(raw) as Counts;
    return value.foreign ? null : value;
  },
  write: (value) => JSON.stringify(value),
};
const bump = (key: string) => (current: Counts) => ({ ...current, [key]: (current[key] ?? 0) + 1 });

describe('updateRecord (compare-and-set with re-reads)', () => {
  it('updates started at once from the same read all land (property: any number up to the attempt bound)', async () => {
    const store = new MemoryStore();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: MAX_UPDATE_ATTEMPTS }), async (keys) => {
        await store.putRecord('t', 'r', '{}', 60_000);
        const from = { value: {}, raw: '{}' };
        const results = await Promise.all(keys.map((k) => updateRecord(store, 't', 'r', from, codec, bump(k), 60_000)));
        expect(results.every((r) => r?.changed)).toBe(true);
        const expected: Counts = {};
        for (const k of keys) expected[k] = (expected[k] ?? 0) + 1;
        expect(JSON.parse((await store.getRecord('t', 'r'))!)).toEqual(expected);
      }),
      { numRuns: 50 },
    );
    await store.close();
  });

  it('a record deleted after it was read is not written back: null', async () => {
    const store = new MemoryStore();
    await store.putRecord('t', 'gone', '{}', 60_000);
    await store.deleteRecord('t', 'gone');
    expect(await updateRecord(store, 't', 'gone', { value: {}, raw: '{}' }, codec, bump('a'), 60_000)).toBeNull();
    expect(await store.getRecord('t', 'gone')).toBeNull();
    await store.close();
  });

  it('a change that declines leaves the record as it stands, and one the codec disowns is null', async () => {
    const store = new MemoryStore();
    await store.putRecord('t', 'r', '{"a":1}', 60_000);
    expect(await updateRecord(store, 't', 'r', null, codec, () => null, 60_000)).toEqual({ now: { value: { a: 1 }, raw: '{"a":1}' }, changed: false });
    await store.putRecord('t', 'r', '{"foreign":1}', 60_000);
    expect(await updateRecord(store, 't', 'r', null, codec, bump('a'), 60_000)).toBeNull();
    expect(await store.getRecord('t', 'r')).toBe('{"foreign":1}');
    await store.close();
  });
});
