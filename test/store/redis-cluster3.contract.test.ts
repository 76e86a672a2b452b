/**
 * The store contract on a real three-master Redis Cluster (issue "Faults and scale-out" item 3):
 * every script stays single-slot with keys spread over masters, leases are taken over across
 * replicas, and promise keys land on every master (the `{promises}` hot slot is gone).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/base/logger.ts';
import { runStoreContract } from '../../src/store/contract.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { describeOwnRedis } from '../support/redis.ts';
import { startRedisCluster, type RedisClusterSet } from '../support/redis-cluster.ts';
import { countKeys, deleteKeys, redisContractTarget } from '../support/redis-keys.ts';

describeOwnRedis('RedisStore on a three-master Redis Cluster', () => {
  let cluster: RedisClusterSet;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  const masters = () => cluster.admin.nodes('master') as unknown as Redis[];

  runStoreContract('redis cluster (3 masters)', redisContractTarget(() => cluster.url, masters, 'c3'));

  it('promise keys land on every master', async () => {
    const prefix = `nlgate-spread-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ url: cluster.url, prefix, log: silentLogger });
    const now = Date.now();
    for (let i = 0; i < 64; i++) {
      const token = `prm_${randomBytes(16).toString('base64url')}`;
      await store.createPromise({ token, agent: 'a', status: 'running', owner: 'r', leaseUntil: now + 60_000, createdAt: now, updatedAt: now }, 60_000);
    }
    const perMaster = await Promise.all(masters().map((m) => countKeys(m, `${prefix}promise:`)));
    expect(perMaster).toHaveLength(3);
    for (const n of perMaster) expect(n).toBeGreaterThan(0);
    expect(perMaster.reduce((a, b) => a + b, 0)).toBe(64);
    await store.close();
    await Promise.all(masters().map((m) => deleteKeys(m, prefix)));
  });
});
