import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { silentLogger } from '../../src/base/logger.ts';
import { eventually, runningPromise } from '../../src/store/contract-helpers.ts';
import { RedisStore } from '../../src/store/redis.ts';
import type { Store } from '../../src/store/store.ts';
import { describeRedis, itOwnRedis, startRedis, type RedisServer } from '../support/redis.ts';

// Short reconnect backoff and timeouts keep the suite fast; production defaults are 2 s each.
const tuning = { reconnectMaxDelayMs: 100, connectTimeoutMs: 500, commandTimeoutMs: 500 };

/** Every store operation once: each must reject with STORE_UNAVAILABLE, quickly. */
function everyOperation(store: Store): Array<[string, () => Promise<unknown>]> {
  const token = 'tok';
  return [
    ['ping', () => store.ping()],
    ['createPromise', () => store.createPromise(runningPromise(), 60_000)],
    ['getPromise', () => store.getPromise(token)],
    ['settlePromise', () => store.settlePromise(token, { status: 'cancelled', response: { _meta: { response_type: 'failure', version: '0.55' }, error: { code: 'CANCELLED' } } }, 1000)],
    ['updatePromise', () => store.updatePromise(token, 'o', { progress: 0.5 })],
    ['renewLease', () => store.renewLease(token, 'o', Date.now())],
    ['expiredLeases', () => store.expiredLeases(Date.now(), 10)],
    ['claimExpiredLease', () => store.claimExpiredLease(token, 'o', Date.now(), Date.now())],
    ['expirePromise', () => store.expirePromise(token, 10)],
    ['publishCancel', () => store.publishCancel(token)],
    ['getConversation', () => store.getConversation('c', 1000)],
    ['recordTurn', () => store.recordTurn('c', { query: 'q', agent: 'a' }, { maxPrev: 3, idleTtlMs: 1000 })],
    ['setConversationAttr', () => store.setConversationAttr('c', 'k', 'v', 1000)],
    ['putRecord', () => store.putRecord('n', 'i', 'v', 1000)],
    ['getRecord', () => store.getRecord('n', 'i', 1000)],
    ['deleteRecord', () => store.deleteRecord('n', 'i')],
    ['limiter', () => store.limiter('l', 5, 1000).consume('k')],
  ];
}

async function expectUnavailable(name: string, op: () => Promise<unknown>, withinMs: number): Promise<void> {
  const started = Date.now();
  await expect(op(), name).rejects.toMatchObject({ name: 'GatewayError', code: 'STORE_UNAVAILABLE', retryAfter: 1 });
  expect(Date.now() - started, `${name} took too long`).toBeLessThan(withinMs);
}

const up = (store: Store) => () => store.ping().then(() => true, () => false);

describeRedis('RedisStore through a Redis outage', () => {
  let server: RedisServer;
  let stores: RedisStore[] = [];
  let prefix = '';
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  /** A store on this case's prefix: two of them are two replicas of one gateway. */
  const open = (): RedisStore => {
    const store = new RedisStore({ url: server.url, prefix, log: silentLogger, tuning });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    server = await startRedis();
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server?.stop();
  });
  beforeEach(() => {
    unhandled.length = 0;
    prefix = `nlgate-outage-${randomBytes(4).toString('hex')}:`;
  });
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
    if (server.controllable) server.resume();
    expect(unhandled).toEqual([]);
  });

  itOwnRedis('redis stopped: every call rejects STORE_UNAVAILABLE within a bounded time; restarted on the same port: the same store works and cancels flow again', async () => {
    const store = open();
    const peer = open();
    await store.ping();
    const seen: string[] = [];
    await store.onCancel((t) => seen.push(t));
    await peer.publishCancel('before');
    await eventually(async () => seen.includes('before'), Boolean, 2000);

    await server.stop();
    for (const [name, op] of everyOperation(store)) await expectUnavailable(name, op, 1000);
    // Still failing fast a while into the outage (ioredis keeps reconnecting meanwhile).
    await new Promise((r) => setTimeout(r, 300));
    await expectUnavailable('ping later', () => store.ping(), 1000);
    // A store that already listens keeps its subscription through the outage: a handler added
    // now is registered and hears cancels once the subscriber is back.
    const lateSeen: string[] = [];
    await store.onCancel((t) => lateSeen.push(t));

    await server.restart();
    await eventually(up(store), Boolean, 5000);
    await eventually(up(peer), Boolean, 5000);
    const record = runningPromise();
    await store.createPromise(record, 60_000);
    expect((await peer.getPromise(record.token))?.token).toBe(record.token);
    // The subscriber connection re-subscribes on its own after reconnecting.
    let n = 0;
    await eventually(async () => {
      await peer.publishCancel(`after-${n++}`);
      return seen.some((t) => t.startsWith('after-'));
    }, Boolean, 5000);
    expect(lateSeen.some((t) => t.startsWith('after-'))).toBe(true);
  });

  itOwnRedis('a store created while redis is down fails fast, then works once redis comes up', async () => {
    await server.stop();
    const store = open();
    await expectUnavailable('ping', () => store.ping(), 1500);
    await expectUnavailable('onCancel', () => store.onCancel(() => undefined), 1500);
    await server.restart();
    await eventually(up(store), Boolean, 5000);
    const seen: string[] = [];
    // The subscriber connection reconnects on its own backoff, which can lag the command
    // connection's (regression: a CI run subscribed in that gap and got STORE_UNAVAILABLE, as a
    // caller then should). A failed subscribe keeps no handler, so it is simply asked again.
    const handler = (t: string) => void seen.push(t);
    await eventually(() => store.onCancel(handler).then(() => true, () => false), Boolean, 5000);
    await store.publishCancel('t');
    await eventually(async () => seen.length, (k) => k === 1, 2000);
  });

  itOwnRedis('a hung redis (SIGSTOP) fails commands after the command timeout instead of hanging; SIGCONT recovers', async () => {
    const store = open();
    await store.ping();
    server.pause();
    await expectUnavailable('limiter', () => store.limiter('l', 5, 1000).consume('k'), tuning.commandTimeoutMs + 700);
    server.resume();
    await eventually(up(store), Boolean, 5000);
    expect((await store.limiter('l', 5, 1000).consume('k2')).allowed).toBe(true);
  });

  itOwnRedis('redis killed (SIGKILL) mid-run: in-flight and later calls fail, no unhandled rejection; restart recovers', async () => {
    const store = open();
    await store.ping();
    const inflight = Array.from({ length: 50 }, (_, i) => store.limiter('l', 5, 60_000).consume(`k${i}`).then(() => 'ok', (e: { code?: string }) => e.code));
    await server.kill();
    const results = await Promise.all(inflight);
    expect(results.every((r) => r === 'ok' || r === 'STORE_UNAVAILABLE')).toBe(true);
    await expectUnavailable('getPromise', () => store.getPromise('x'), 1000);
    await server.restart();
    await eventually(up(store), Boolean, 5000);
  });

  itOwnRedis('redis cluster: a stopped node fails calls fast; restarted, the same Cluster store and its cancels work again', async () => {
    // Node may print one MaxListenersExceededWarning here: ioredis's ClusterSubscriber adds a socket
    // listener per reconnect attempt while the only node is down (ioredis internals, not a leak of ours).
    const node = await startRedis({ cluster: true });
    try {
      const store = new RedisStore({ url: `redis-cluster://127.0.0.1:${node.port}`, prefix, log: silentLogger, tuning });
      stores.push(store);
      await store.ping();
      const seen: string[] = [];
      await store.onCancel((t) => seen.push(t));
      await node.stop();
      for (const [name, op] of everyOperation(store).slice(0, 4)) await expectUnavailable(name, op, 1000);
      await node.restart();
      await eventually(up(store), Boolean, 8000);
      // The cancel subscription comes back on ioredis's own schedule: its cluster subscriber is
      // re-selected only once the pool has rediscovered the node. Usually well under a second
      // (4.3 s for the whole test run alone); once, on a loaded CI machine, just over 5 s, and once
      // (2026-11-28, the whole suite on 2 cores) over 12. What is asserted is that it comes back.
      let n = 0;
      await eventually(async () => {
        await store.publishCancel(`c${n++}`).catch(() => undefined);
        return seen.length > 0;
      }, Boolean, 30_000);
    } finally {
      await node.stop();
    }
  }, 60_000);
});
