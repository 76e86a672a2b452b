import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/base/logger.ts';
import { runStoreContract } from '../../src/store/contract.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { describeOwnRedis, startRedis, startSentinel, type RedisServer, type SentinelServer } from '../support/redis.ts';
import { deleteKeys, redisContractTarget } from '../support/redis-keys.ts';

// The store reaches its master through a real Sentinel (redis-server --sentinel) from a
// redis-sentinel:// URL. REDIS_URL names a plain Redis, so this suite needs its own servers.

describeOwnRedis('RedisStore through Redis Sentinel (redis-sentinel:// URL)', () => {
  let master: RedisServer;
  let sentinel: SentinelServer;
  let admin: Redis;
  beforeAll(async () => {
    master = await startRedis();
    sentinel = await startSentinel(master.port);
    admin = new Redis(master.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await sentinel?.stop();
    await master?.stop();
  });

  runStoreContract('redis via sentinel', redisContractTarget(() => sentinel.url, () => admin, 'sn'));

  it('the data lands on the master the sentinel names', async () => {
    const prefix = `nlgate-sn-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ url: sentinel.url, prefix, log: silentLogger });
    await store.putRecord('ns', 'id', 'via-sentinel', 60_000);
    expect(await admin.get(`${prefix}rec:{ra}:ns:id`)).toBe('via-sentinel');
    await store.close();
    await deleteKeys(admin, prefix);
  });
});
