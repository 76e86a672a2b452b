import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { EXACT_BELOW, RetainedMap, SETTLED_MOVES, settledMoves } from './memory-retention.ts';
import { OldestFirst } from './owned-keys.ts';

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

describe('RetainedMap at scale: touches that leave a settled entry in place', () => {
  /** Fills the anonymous class with `n` entries `k0…k<n-1>`. */
  const filled = (n: number, max: number, dropped: string[] = []) => {
    const kept = new RetainedMap<{ expiresAt: number; moved?: number }>(max, (k) => dropped.push(k));
    for (let i = 0; i < n; i++) kept.keep(`k${i}`, false, { expiresAt: Infinity });
    return kept;
  };
  /** A read's touch, as the memory store makes it: the held entry kept again. */
  const touch = (kept: ReturnType<typeof filled>, key: string) => kept.keep(key, false, kept.live(key, false, 0)!);

  it('regression "one hot key\'s touch cost grew with its class": a key touched over and over is moved once per SETTLED_MOVES moves of its class, not on every touch', () => {
    const kept = filled(1000, 50_000);
    const deletes = vi.spyOn(Map.prototype, 'delete');
    try {
      for (let i = 0; i < 10_000; i++) touch(kept, 'k999');
      // V8 keeps each deleted copy in the key's bucket chain until a rehash: 10,000 moves made every lookup of it walk them.
      expect(deletes).toHaveBeenCalledTimes(0);
      deletes.mockClear();
      for (let i = 0; i < 640; i++) {
        touch(kept, 'k5');
        kept.keep(`new${i}`, false, { expiresAt: Infinity }); // other traffic moves the class on
      }
      const movesOfK5 = deletes.mock.calls.filter(([key]) => key === 'k5').length;
      expect(movesOfK5).toBeGreaterThanOrEqual(640 / SETTLED_MOVES - 1);
      expect(movesOfK5).toBeLessThanOrEqual(640 / SETTLED_MOVES + 1);
    } finally {
      deletes.mockRestore();
    }
  });

  it('below EXACT_BELOW entries every touch moves: the order stays exactly least recently used', () => {
    const dropped: string[] = [];
    const kept = filled(EXACT_BELOW - 1, EXACT_BELOW - 1, dropped);
    touch(kept, 'k0');
    kept.keep('next', false, { expiresAt: Infinity });
    expect(dropped).toEqual(['k1']);
  });

  it('a new value for a held key always moves it, however recently it moved', () => {
    const dropped: string[] = [];
    const kept = filled(300, 300, dropped);
    touch(kept, 'k0'); // moved: the newest
    for (let i = 0; i < 10; i++) kept.keep(`k${i + 1}`, false, { expiresAt: Infinity }); // new values: moved behind k0
    kept.keep('k0', false, { expiresAt: 5 }); // a new value of k0, within the settled window
    expect(kept.live('k0', false, 0)?.expiresAt).toBe(5);
    for (let i = 0; i < 289; i++) kept.keep(`x${i}`, false, { expiresAt: Infinity });
    expect(dropped).not.toContain('k0');
  });

  it.each([
    [EXACT_BELOW + 44, 60],
    [4096, 8], // a window of size/32 (128), above SETTLED_MOVES
  ])('in a class of %i, never pushes out a key touched within the last max - settledMoves(max) - 1 operations, and never loses a touched entry (property)', (max, numRuns) => {
    const window = settledMoves(max);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('touch', 'touch', 'add', 'put'), fc.nat(max + 150)), { minLength: max, maxLength: 3 * max }), (ops) => {
        const dropped: string[] = [];
        const kept = filled(max, max, dropped);
        const lastUse = new Map<string, number>(Array.from({ length: max }, (_, i) => [`k${i}`, i - max]));
        let adds = 0;
        ops.forEach(([op, n], at) => {
          const seen = dropped.length;
          const key = op === 'add' ? `n${adds++}` : `k${n}`;
          if (op === 'touch') {
            if (kept.live(key, false, 0) === undefined) return;
            touch(kept, key);
            expect(kept.live(key, false, 0)).toBeDefined();
          } else kept.keep(key, false, { expiresAt: Infinity });
          lastUse.set(key, at);
          for (const gone of dropped.slice(seen)) {
            expect(at - lastUse.get(gone)!).toBeGreaterThanOrEqual(max - window - 1);
            lastUse.delete(gone);
          }
          expect(kept.size).toBeLessThanOrEqual(max);
        });
      }),
      { numRuns },
    );
  });
});
