import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXACT_BELOW, OwnedKeys, settledMoves } from './owned-keys.ts';
import { RecordTable } from './memory-records.ts';

describe('OwnedKeys', () => {
  it('keeps each owner\'s newest keys up to its quota and drops exactly the ones it gives up (property, against a model)', () => {
    const op = fc.oneof(
      fc.record({ add: fc.constantFrom('a', 'b', 'c'), key: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ forget: fc.constantFrom('a', 'b', 'c'), key: fc.integer({ min: 0, max: 6 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const dropped: string[] = [];
        const owned = new OwnedKeys(max, (key) => dropped.push(key));
        const model = new Map<string, string[]>();
        for (const o of ops) {
          if ('add' in o) {
            const key = `${o.add}${o.key}`;
            const mine = (model.get(o.add) ?? []).filter((k) => k !== key);
            mine.push(key);
            const expectDropped = mine.splice(0, Math.max(0, mine.length - max));
            model.set(o.add, mine);
            dropped.length = 0;
            owned.add(o.add, key);
            expect(dropped).toEqual(expectDropped);
          } else {
            const key = `${o.forget}${o.key}`;
            model.set(o.forget, (model.get(o.forget) ?? []).filter((k) => k !== key));
            owned.forget(o.forget, key);
          }
        }
        expect(owned.owners).toBe([...model.values()].filter((keys) => keys.length > 0).length);
      }),
    );
  });

  it.each([
    [EXACT_BELOW + 44, 60],
    [4096, 8], // a window of max/32 (128), above SETTLED_MOVES
  ])('in an owner of %i keys, never gives up a key touched within the last max - settledMoves(max) - 1 operations (property)', (max, numRuns) => {
    const window = settledMoves(max);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('touch', 'touch', 'touch', 'add'), fc.nat(max + 150)), { minLength: max, maxLength: 3 * max }), (ops) => {
        const dropped: string[] = [];
        const owned = new OwnedKeys(max, (key) => dropped.push(key));
        const held = new Set<string>();
        const lastUse = new Map<string, number>();
        for (let i = 0; i < max; i++) {
          owned.add('o', `k${i}`);
          held.add(`k${i}`);
          lastUse.set(`k${i}`, i - max);
        }
        let adds = 0;
        ops.forEach(([op, n], at) => {
          const key = op === 'add' ? `n${adds++}` : `k${n}`;
          if (op === 'touch' && !held.has(key)) return;
          const seen = dropped.length;
          owned.add('o', key);
          held.add(key);
          lastUse.set(key, at);
          for (const gone of dropped.slice(seen)) {
            expect(gone).not.toBe(key);
            expect(at - lastUse.get(gone)!).toBeGreaterThanOrEqual(max - window - 1);
            held.delete(gone);
          }
          expect(held.size).toBeLessThanOrEqual(max);
        });
      }),
      { numRuns },
    );
  });

  // One key touched over and over in an owner of 1,000 (an MCP session's conversation, twice a call)
  // is left in place while it is among the newest (issue 25: each delete and add lengthened its
  // bucket chain, 1.2 µs a touch); the owner's other keys keep their order.
  it('touching one key of a large owner over and over keeps the order of the others', () => {
    const dropped: string[] = [];
    const owned = new OwnedKeys(1000, (key) => dropped.push(key));
    for (let i = 0; i < 1000; i++) owned.add('o', `k${i}`);
    for (let i = 0; i < 10_000; i++) owned.add('o', 'k999');
    owned.add('o', 'new1');
    owned.add('o', 'new2');
    expect(dropped).toEqual(['k0', 'k1']);
  });
});

describe('RecordTable', () => {
  it('forgets an owner once its records have expired or been deleted: nothing of it is left', () => {
    const table = new RecordTable(100, 10);
    const now = Date.now();
    for (let i = 0; i < 5; i++) table.write('a2a-task', `a2a-task:t${i}`, `t${i}`, 'v', now + 10, `owner${i}`);
    table.write('a2a-task', 'a2a-task:kept', 'kept', 'v', now + 60_000, 'owner0');
    table.delete('a2a-task:kept', 'kept');
    expect(table.sweep(now + 20)).toBe(5);
    expect(table.size).toBe(0);
    expect(table.ownerGroups).toBe(0);
  });

  it('a record rewritten for another owner counts against the new owner only', () => {
    const table = new RecordTable(100, 1);
    const now = Date.now() + 60_000;
    table.write('alias:x', 'alias:x:h', 'h', 'v1', now, 'first');
    table.write('alias:x', 'alias:x:h', 'h', 'v2', now, 'second');
    table.write('alias:x', 'alias:x:other', 'other', 'v', now, 'first');
    expect(table.live('alias:x:h', 'h', Date.now())?.value).toBe('v2');
    expect(table.ownerGroups).toBe(2);
  });
});
