import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory.ts';
import { windowSeconds } from './limiter.ts';

describe('rate limiters (property: random request counts around the limit)', () => {
  it('of n requests in one window exactly min(n, points) are allowed, and every refusal says how long to wait', async () => {
    const store = new MemoryStore();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 20 }), fc.integer({ min: -3, max: 3 }), async (points, delta) => {
        const n = Math.max(0, points + delta);
        const limiter = store.limiter(`prop-${run++}`, points, 60_000);
        const decisions = await Promise.all(Array.from({ length: n }, () => limiter.consume('k')));
        expect(decisions.filter((d) => d.allowed)).toHaveLength(Math.min(n, points));
        for (const d of decisions.filter((x) => !x.allowed)) {
          expect(d.retryAfterMs).toBeGreaterThan(0);
          expect(d.retryAfterMs).toBeLessThanOrEqual(60_000);
        }
      }),
      { numRuns: 60 },
    );
    await store.close();
  });

  it('keys never share a bucket, however many there are', async () => {
    const store = new MemoryStore();
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 30 }), async (keys) => {
        const limiter = store.limiter(`keys-${keys.join('|').length}-${Math.random()}`, 1, 60_000);
        const first = await Promise.all(keys.map((k) => limiter.consume(k)));
        expect(first.every((d) => d.allowed)).toBe(true);
        expect((await limiter.consume(keys[0]!)).allowed).toBe(false);
      }),
      { numRuns: 30 },
    );
    await store.close();
  });

  it('windows are whole seconds, at least one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (ms) => {
        const s = windowSeconds(ms);
        expect(s).toBeGreaterThanOrEqual(1);
        expect(s * 1000).toBeGreaterThanOrEqual(ms);
        expect((s - 1) * 1000).toBeLessThan(Math.max(ms, 1000));
      }),
    );
  });
});
