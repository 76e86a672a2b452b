import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OldestFirst, RetainedMap } from './memory-retention.ts';

describe('OldestFirst', () => {
  // Regression (issue 25): eviction at a full class started at the front of the Map every time and
  // stepped over every deleted slot V8 still kept there (13 µs per write at 50,000 entries). A kept
  // cursor must still name exactly the least recently used key, whatever happened in between.
  it('names the least recently used key, through touches, deletes and takes in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('add', 'touch', 'delete', 'take'), fc.nat(30)), { maxLength: 300 }), (ops) => {
        const map = new Map<number, true>();
        const model: number[] = []; // least recently used first
        const oldest = new OldestFirst(() => map.keys());
        for (const [op, k] of ops) {
          if (op === 'add' || op === 'touch') {
            map.delete(k);
            map.set(k, true);
            const i = model.indexOf(k);
            if (i >= 0) model.splice(i, 1);
            model.push(k);
          } else if (op === 'delete') {
            map.delete(k);
            const i = model.indexOf(k);
            if (i >= 0) model.splice(i, 1);
          } else {
            const taken = oldest.take();
            expect(taken).toBe(model[0]);
            if (taken !== undefined) {
              map.delete(taken);
              model.shift();
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('RetainedMap', () => {
  it('keeps at most max per class, pushing out the least recently used, and reports each', () => {
    const dropped: string[] = [];
    const kept = new RetainedMap<{ expiresAt: number }>(3, (k) => dropped.push(k));
    for (const k of ['a', 'b', 'c']) kept.keep(k, false, { expiresAt: Infinity });
    kept.keep('a', false, { expiresAt: Infinity }); // touch: b is now the oldest
    kept.keep('d', false, { expiresAt: Infinity });
    kept.keep('e', false, { expiresAt: Infinity });
    kept.keep('v', true, { expiresAt: Infinity }); // the verified class is apart
    expect(dropped).toEqual(['b', 'c']);
    expect(kept.size).toBe(4);
    expect(kept.live('a', false, 0)).toBeDefined();
  });
});
