import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/base/logger.ts';
import { runStoreContract } from '../../src/store/contract.ts';
import { bucketOf, PROMISE_BUCKETS } from '../../src/store/redis-buckets.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { describeOwnRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { redisContractTarget } from '../support/redis-keys.ts';

// A one-node Redis Cluster still enforces Cluster rules for declared keys: a command or script
// whose KEYS span two hash slots fails with CROSSSLOT, so the contract passing here proves that
// every multi-key script keeps its keys in one slot. (Keys a script reads by name — expiredLeases
// reads promise hashes — are not checked on one node; the KEYSLOT case below pins them down.)
// REDIS_URL points at a plain Redis, so this suite needs its own server.

describeOwnRedis('RedisStore on a one-node Redis Cluster (redis-cluster:// URL)', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedis({ cluster: true });
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  runStoreContract('redis cluster', redisContractTarget(() => `redis-cluster://127.0.0.1:${server.port}`, () => admin, 'cl'));

  it('the URL builds an ioredis Cluster client (not a plain connection)', async () => {
    const store = new RedisStore({ url: `redis-cluster://127.0.0.1:${server.port}`, log: silentLogger });
    expect(store.client).toBeInstanceOf(Cluster);
    await store.ping();
    await store.close();
  });

  it('a script declaring keys in two slots is refused here, so the contract above would catch a bad layout', async () => {
    await expect(admin.eval("return redis.call('GET', KEYS[1]) or redis.call('GET', KEYS[2])", 2, 'a', 'b')).rejects.toThrow(/CROSSSLOT/);
  });

  it('every promise hash shares its hash slot with its bucket\'s lease index, whatever the prefix or token', async () => {
    for (const prefix of ['nlgate:', 'tenant-7:', 'a:b:c:']) {
      for (const token of ['x', randomBytes(16).toString('base64url'), '{weird}', 'prm_abc']) {
        const b = bucketOf(token);
        expect(await admin.cluster('KEYSLOT', `${prefix}promise:{p${b}}:${token}`)).toBe(await admin.cluster('KEYSLOT', `${prefix}leases:{p${b}}`));
      }
    }
  });

  it('the lease buckets fall into different slots (so a multi-node cluster can spread them)', async () => {
    const slots = new Set<number>();
    for (let b = 0; b < PROMISE_BUCKETS; b++) slots.add(Number(await admin.cluster('KEYSLOT', `nlgate:leases:{p${b}}`)));
    expect(slots.size).toBe(PROMISE_BUCKETS);
  });
});
