/**
 * Store contract, part 1: promises and leases (store.ts "promises"; design.md "State": complete
 * vs cancel and two replicas race atomically; a dead replica's lease expires and is taken over).
 */
import { describe, expect, it } from 'vitest';
import { answer, eventually, failure, newToken, runningPromise, sleep, type StoreHarness } from './contract-helpers.ts';
import type { PromiseRecord } from './store.ts';

const LONG = 60_000;

/** Registers the promise and lease cases of the Store contract. */
export function promiseContract(h: () => StoreHarness): void {
  describe('promises', () => {
    it('createPromise then getPromise returns the record as stored, optional fields included', async () => {
      const { store } = h();
      const record: PromiseRecord = {
        ...runningPromise(),
        progress: 0.25,
        message: 'working on it — é 😀 "quoted" {json}',
        estimatedTime: 12,
        upstreamToken: 'up-123',
        request: { query: { text: 'spicy soup' }, prefer: { streaming: false }, empty: [], nested: { a: [1, { b: null }] } },
        conversationId: 'conv-1',
      };
      await store.createPromise(record, LONG);
      expect(await store.getPromise(record.token)).toEqual(record);
    });

    it('getPromise of an unknown token is null', async () => {
      expect(await h().store.getPromise(newToken())).toBeNull();
    });

    it('createPromise rejects a token that already exists and keeps the first record', async () => {
      const { store } = h();
      const record = runningPromise();
      await store.createPromise(record, LONG);
      await expect(store.createPromise({ ...record, owner: 'intruder' }, LONG)).rejects.toMatchObject({ name: 'GatewayError' });
      expect((await store.getPromise(record.token))?.owner).toBe('replica-a');
    });

    it('settlePromise moves a running promise to its terminal state exactly once', async () => {
      const { store } = h();
      const record = runningPromise();
      await store.createPromise(record, LONG);
      expect(await store.settlePromise(record.token, { status: 'done', response: answer('first') }, LONG)).toBe(true);
      expect(await store.settlePromise(record.token, { status: 'cancelled', response: failure('CANCELLED', 'x') }, LONG)).toBe(false);
      const stored = await store.getPromise(record.token);
      expect(stored?.status).toBe('done');
      expect(stored?.response).toEqual(answer('first'));
    });

    it('settlePromise of an unknown token returns false and creates nothing', async () => {
      const { store } = h();
      const token = newToken();
      expect(await store.settlePromise(token, { status: 'done', response: answer('x') }, LONG)).toBe(false);
      expect(await store.getPromise(token)).toBeNull();
    });

    it('complete-vs-cancel race on two replicas: exactly one settle wins, 100 times, and the state is the winner\'s', async () => {
      const { store } = h();
      const peer = await h().peer();
      const records = Array.from({ length: 100 }, () => runningPromise());
      await Promise.all(records.map((r) => store.createPromise(r, LONG)));
      const outcomes = await Promise.all(
        records.map(async (r, i) => {
          const complete = store.settlePromise(r.token, { status: 'done', response: answer(`done-${i}`) }, LONG);
          const cancel = peer.settlePromise(r.token, { status: 'cancelled', response: failure('CANCELLED', `cancel-${i}`) }, LONG);
          return Promise.all([complete, cancel]);
        }),
      );
      const finals = await Promise.all(records.map((r) => peer.getPromise(r.token)));
      outcomes.forEach(([completed, cancelled], i) => {
        expect(Number(completed) + Number(cancelled)).toBe(1);
        const final = finals[i];
        if (completed) expect(final).toMatchObject({ status: 'done', response: answer(`done-${i}`) });
        else expect(final).toMatchObject({ status: 'cancelled', response: failure('CANCELLED', `cancel-${i}`) });
      });
    });

    it('updatePromise patches a running promise for its owner only', async () => {
      const { store } = h();
      const record = runningPromise();
      await store.createPromise(record, LONG);
      expect(await store.updatePromise(record.token, 'replica-b', { progress: 0.9 })).toBe(false);
      expect(await store.updatePromise(record.token, 'replica-a', { progress: 0.5, message: 'half', upstreamToken: 'u1' })).toBe(true);
      const stored = await store.getPromise(record.token);
      expect(stored).toMatchObject({ progress: 0.5, message: 'half', upstreamToken: 'u1', status: 'running' });
      expect(stored?.updatedAt).toBeGreaterThanOrEqual(record.updatedAt);
    });

    it('updatePromise is refused once the promise is settled, and for an unknown token', async () => {
      const { store } = h();
      const record = runningPromise();
      await store.createPromise(record, LONG);
      await store.settlePromise(record.token, { status: 'failed', response: failure('TIMEOUT', 'slow') }, LONG);
      expect(await store.updatePromise(record.token, 'replica-a', { progress: 1 })).toBe(false);
      expect((await store.getPromise(record.token))?.progress).toBeUndefined();
      expect(await store.updatePromise(newToken(), 'replica-a', { progress: 1 })).toBe(false);
    });

    it('renewLease extends the lease for the owner only and only while running', async () => {
      const { store } = h();
      const record = runningPromise({ leaseUntil: Date.now() + 1000 });
      await store.createPromise(record, LONG);
      const later = Date.now() + 30_000;
      expect(await store.renewLease(record.token, 'replica-b', later)).toBe(false);
      expect(await store.renewLease(record.token, 'replica-a', later)).toBe(true);
      expect((await store.getPromise(record.token))?.leaseUntil).toBe(later);
      await store.settlePromise(record.token, { status: 'done', response: answer('ok') }, LONG);
      expect(await store.renewLease(record.token, 'replica-a', later + 1000)).toBe(false);
      expect((await store.getPromise(record.token))?.leaseUntil).toBe(later);
    });

    it('expiredLeases lists running promises whose lease ended before now, oldest first, at most limit', async () => {
      const { store } = h();
      const now = Date.now();
      const old = [3, 2, 1].map((k) => runningPromise({ leaseUntil: now - k * 1000 }));
      const live = runningPromise({ leaseUntil: now + LONG });
      const settled = runningPromise({ leaseUntil: now - 5000 });
      const renewed = runningPromise({ leaseUntil: now - 4000 });
      for (const r of [...old, live, settled, renewed]) await store.createPromise(r, LONG);
      await store.settlePromise(settled.token, { status: 'done', response: answer('x') }, LONG);
      await store.renewLease(renewed.token, 'replica-a', now + LONG);
      expect(await store.expiredLeases(now, 10)).toEqual(old.map((r) => r.token));
      expect(await store.expiredLeases(now, 2)).toEqual(old.slice(0, 2).map((r) => r.token));
      expect(await store.expiredLeases(now, 0)).toEqual([]);
      // "before now" is strict: a lease ending exactly now is not yet expired.
      expect(await store.expiredLeases(now - 3000, 10)).toEqual([]);
    });

    it('claimExpiredLease: of two replicas claiming the same dead lease concurrently, exactly one wins (20 times)', async () => {
      const { store } = h();
      const peer = await h().peer();
      const now = Date.now();
      const records = Array.from({ length: 20 }, () => runningPromise({ owner: 'dead', leaseUntil: now - 1 }));
      for (const r of records) await store.createPromise(r, LONG);
      const until = now + LONG;
      const claims = await Promise.all(
        records.map((r) => Promise.all([store.claimExpiredLease(r.token, 'replica-a', until, now), peer.claimExpiredLease(r.token, 'replica-b', until, now)])),
      );
      for (const [i, [a, b]] of claims.entries()) {
        expect([a, b].filter((c) => c !== null)).toHaveLength(1);
        const winner = (a ?? b) as PromiseRecord;
        expect(winner).toMatchObject({ token: records[i]?.token, owner: a ? 'replica-a' : 'replica-b', leaseUntil: until, status: 'running' });
        expect(await store.getPromise(winner.token)).toMatchObject({ owner: winner.owner, leaseUntil: until });
      }
      expect(await store.expiredLeases(now, 100)).toEqual([]);
    });

    it('claimExpiredLease refuses a live lease and a settled promise; the new owner alone may renew', async () => {
      const { store } = h();
      const now = Date.now();
      const live = runningPromise({ leaseUntil: now + LONG });
      const dead = runningPromise({ leaseUntil: now - 10 });
      const done = runningPromise({ leaseUntil: now - 10 });
      for (const r of [live, dead, done]) await store.createPromise(r, LONG);
      await store.settlePromise(done.token, { status: 'done', response: answer('x') }, LONG);
      expect(await store.claimExpiredLease(live.token, 'replica-b', now + LONG, now)).toBeNull();
      expect(await store.claimExpiredLease(done.token, 'replica-b', now + LONG, now)).toBeNull();
      expect(await store.claimExpiredLease(newToken(), 'replica-b', now + LONG, now)).toBeNull();
      expect(await store.claimExpiredLease(dead.token, 'replica-b', now + 5000, now)).toMatchObject({ owner: 'replica-b' });
      expect(await store.renewLease(dead.token, 'replica-a', now + LONG)).toBe(false);
      expect(await store.updatePromise(dead.token, 'replica-a', { progress: 0.1 })).toBe(false);
      expect(await store.renewLease(dead.token, 'replica-b', now + LONG)).toBe(true);
    });

    it('releaseLeases ends the owner\'s live leases at once: a peer sees them expired and claims them; others are untouched', async () => {
      const { store } = h();
      const peer = await h().peer();
      const now = Date.now();
      const mine = [runningPromise({ leaseUntil: now + LONG }), runningPromise({ leaseUntil: now + LONG })];
      const theirs = runningPromise({ owner: 'replica-b', leaseUntil: now + LONG });
      const settled = runningPromise({ leaseUntil: now + LONG });
      for (const r of [...mine, theirs, settled]) await store.createPromise(r, LONG);
      await store.settlePromise(settled.token, { status: 'done', response: answer('x') }, LONG);
      const asked = [...mine, theirs, settled].map((r) => r.token).concat(newToken());
      expect((await store.releaseLeases(asked, 'replica-a')).sort()).toEqual(mine.map((r) => r.token).sort());
      expect(await store.releaseLeases([], 'replica-a')).toEqual([]);
      // Expired now on every replica: the peer lists and claims them without waiting for the old lease to run out.
      expect((await peer.expiredLeases(Date.now(), 10)).sort()).toEqual(mine.map((r) => r.token).sort());
      for (const r of mine) expect(await peer.claimExpiredLease(r.token, 'replica-b', Date.now() + LONG, Date.now())).toMatchObject({ owner: 'replica-b', status: 'running' });
      expect(await store.getPromise(theirs.token)).toMatchObject({ owner: 'replica-b', leaseUntil: theirs.leaseUntil });
      expect(await store.getPromise(settled.token)).toMatchObject({ status: 'done' });
    });

    it('a promise disappears after its TTL', async () => {
      const { store } = h();
      const record = runningPromise();
      await store.createPromise(record, 150);
      expect(await store.getPromise(record.token)).not.toBeNull();
      await eventually(() => store.getPromise(record.token), (p) => p === null, 2000);
      expect(await store.settlePromise(record.token, { status: 'done', response: answer('late') }, LONG)).toBe(false);
    });

    it('settlePromise resets the record\'s life to its ttl', async () => {
      const { store } = h();
      const record = runningPromise();
      await store.createPromise(record, LONG);
      await store.settlePromise(record.token, { status: 'done', response: answer('ok') }, 150);
      await eventually(() => store.getPromise(record.token), (p) => p === null, 2000);
    });

    it('expirePromise shortens a settled promise\'s life, never extends it, and leaves a running one alone', async () => {
      const { store } = h();
      const settled = runningPromise();
      const running = runningPromise();
      const short = runningPromise();
      for (const r of [settled, running, short]) await store.createPromise(r, LONG);
      await store.settlePromise(settled.token, { status: 'done', response: answer('read') }, LONG);
      await store.settlePromise(short.token, { status: 'done', response: answer('read') }, 150);
      await store.expirePromise(settled.token, 150);
      await store.expirePromise(running.token, 150);
      await store.expirePromise(short.token, LONG);
      await store.expirePromise(newToken(), 150);
      expect(await store.getPromise(settled.token)).not.toBeNull();
      await eventually(() => store.getPromise(settled.token), (p) => p === null, 2000);
      await eventually(() => store.getPromise(short.token), (p) => p === null, 2000);
      await sleep(50);
      expect((await store.getPromise(running.token))?.status).toBe('running');
    });
  });
}
