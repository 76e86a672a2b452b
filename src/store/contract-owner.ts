/**
 * Store contract, part 3: what issue 11 ("Ownership", "Limits") asks of every store — a promise read
 * for another owner is no promise, the owner survives a take-over, stored `prev` is bounded in total
 * characters, and byte quotas hold atomically across replicas and end by themselves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventually, newToken, runningPromise, type StoreHarness } from './contract-helpers.ts';

const LONG = 60_000;

/** Registers the ownership and cap cases of the Store contract. */
export function ownerContract(h: () => StoreHarness): void {
  describe('promise owners', () => {
    it('getPromise with a principal returns the record only to its owner; another reads null, as for a token never issued', async () => {
      const { store } = h();
      const record = runningPromise({ principal: 'tag-alice' });
      await store.createPromise(record, LONG);
      expect(await store.getPromise(record.token, 'tag-alice')).toEqual(record);
      expect(await store.getPromise(record.token, 'tag-bob')).toBeNull();
      expect(await store.getPromise(newToken(), 'tag-bob')).toBeNull();
      // A record without an owner belongs to nobody who names one.
      const orphan = runningPromise();
      await store.createPromise(orphan, LONG);
      expect(await store.getPromise(orphan.token, 'tag-alice')).toBeNull();
    });

    it('the owner survives a lease take-over by another replica', async () => {
      const { store } = h();
      const peer = await h().peer();
      const now = Date.now();
      const record = runningPromise({ principal: 'tag-alice', leaseUntil: now - 1 });
      await store.createPromise(record, LONG);
      const claimed = await peer.claimExpiredLease(record.token, 'replica-b', now + LONG, now);
      expect(claimed?.principal).toBe('tag-alice');
      expect((await store.getPromise(record.token, 'tag-alice'))?.owner).toBe('replica-b');
    });
  });

  describe('bounded prev', () => {
    it('recordTurn drops the oldest queries while the kept ones are longer than maxPrevTotalChars (UTF-16 code units)', async () => {
      const { store } = h();
      const id = newToken();
      const opts = { maxPrev: 10, idleTtlMs: LONG, maxPrevTotalChars: 10 };
      await store.recordTurn(id, { query: 'aaaa', agent: 'a' }, opts);
      await store.recordTurn(id, { query: 'bbbb', agent: 'a' }, opts);
      expect((await store.getConversation(id, LONG))?.prev).toEqual(['aaaa', 'bbbb']);
      await store.recordTurn(id, { query: 'cccc', agent: 'a' }, opts);
      expect((await store.getConversation(id, LONG))?.prev).toEqual(['bbbb', 'cccc']);
      // 'é' is 1 unit, '😀' 2: 'é😀é' is 4, so with 'cccc' and 'dd' the total is exactly 10.
      await store.recordTurn(id, { query: 'dd', agent: 'a' }, opts);
      await store.recordTurn(id, { query: 'é😀é', agent: 'a' }, opts);
      expect((await store.getConversation(id, LONG))?.prev).toEqual(['cccc', 'dd', 'é😀é']);
    });

    it('the kept total never exceeds the cap, and the newest query that fits is always kept (property)', async () => {
      const { store } = h();
      await fc.assert(
        fc.asyncProperty(fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 12, max: 40 }), async (queries, cap) => {
          const id = newToken();
          const opts = { maxPrev: 10, idleTtlMs: LONG, maxPrevTotalChars: cap };
          for (const query of queries) await store.recordTurn(id, { query, agent: 'a' }, opts);
          const prev = (await store.getConversation(id, LONG))?.prev ?? [];
          expect(prev.reduce((n, q) => n + q.length, 0)).toBeLessThanOrEqual(cap);
          expect(prev).toEqual(queries.slice(queries.length - prev.length));
          if (queries.at(-1)!.length <= cap) expect(prev.at(-1)).toBe(queries.at(-1));
        }),
        { numRuns: 25 },
      );
    });
  });

  describe('quotas', () => {
    const scopes = (who: string) => [
      { key: `test:principal:${who}`, limit: 100 },
      { key: 'test:total', limit: 150 },
    ];

    it('reserves up to each limit and refuses above it, all scopes or none', async () => {
      const { store } = h();
      expect(await store.reserveQuota(scopes('alice'), 'u1', 60, LONG)).toBe(true);
      expect(await store.reserveQuota(scopes('alice'), 'u2', 41, LONG)).toBe(false);
      expect(await store.reserveQuota(scopes('alice'), 'u2', 40, LONG)).toBe(true);
      // Bob's own scope has room, the total does not: nothing is reserved for him anywhere.
      expect(await store.reserveQuota(scopes('bob'), 'u3', 51, LONG)).toBe(false);
      expect(await store.reserveQuota(scopes('bob'), 'u3', 50, LONG)).toBe(true);
      expect(await store.reserveQuota([{ key: 'test:principal:bob', limit: 100 }], 'u4', 50, LONG)).toBe(true);
    });

    it('reserving an id again replaces its amount: a provisional charge can be made exact', async () => {
      const { store } = h();
      expect(await store.reserveQuota(scopes('alice'), 'u1', 90, LONG)).toBe(true);
      expect(await store.reserveQuota(scopes('alice'), 'u1', 100, LONG)).toBe(true);
      expect(await store.reserveQuota(scopes('alice'), 'u2', 1, LONG)).toBe(false);
      expect(await store.reserveQuota(scopes('alice'), 'u1', 30, LONG)).toBe(true);
      expect(await store.reserveQuota(scopes('alice'), 'u2', 70, LONG)).toBe(true);
      expect(await store.reserveQuota(scopes('alice'), 'u3', 1, LONG)).toBe(false);
    });

    it('releaseQuota gives the amount back to every scope', async () => {
      const { store } = h();
      expect(await store.reserveQuota(scopes('alice'), 'u1', 100, LONG)).toBe(true);
      expect(await store.reserveQuota(scopes('alice'), 'u2', 1, LONG)).toBe(false);
      await store.releaseQuota(scopes('alice'), 'u1');
      expect(await store.reserveQuota(scopes('alice'), 'u2', 100, LONG)).toBe(true);
    });

    it('a reservation ends by itself when its time is up', async () => {
      const { store } = h();
      expect(await store.reserveQuota(scopes('alice'), 'short', 100, 200)).toBe(true);
      expect(await store.reserveQuota(scopes('alice'), 'next', 100, LONG)).toBe(false);
      await eventually(() => store.reserveQuota(scopes('alice'), 'next', 100, LONG), (ok) => ok, 3000);
    });

    it('concurrent reservations from two replicas never go over a limit', async () => {
      const { store } = h();
      const peer = await h().peer();
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? store : peer).reserveQuota(scopes(`p${i % 4}`), `r${i}`, 10, LONG)));
      // 150 total / 10 each: exactly 15 fit, whoever asked.
      expect(results.filter(Boolean)).toHaveLength(15);
    });

    it('bounded growth: reservations and their scopes disappear once their time is up', async () => {
      const { store } = h();
      const baseline = await h().keyCount();
      for (let i = 0; i < 5; i++) await store.reserveQuota(scopes(`g${i}`), `g${i}`, 10, 150);
      expect(await h().keyCount()).toBeGreaterThan(baseline);
      await eventually(() => h().keyCount(), (n) => n === baseline, 4000);
    });
  });
}
