/** Prefix-scoped key helpers for the Redis store suites (never FLUSHDB: REDIS_URL may be shared). */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { silentLogger } from '../../src/base/logger.ts';
import { RedisStore } from '../../src/store/redis.ts';
import type { StoreCaps } from '../../src/store/store.ts';

/** Counts the live keys under `prefix` (SCAN skips logically expired keys, unlike DBSIZE). */
export async function countKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    count += keys.length;
  } while (cursor !== '0');
  return count;
}

/** Deletes every key under `prefix` (one DEL per key: on a Cluster node a multi-key DEL is CROSSSLOT). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await Promise.all(keys.map((key) => redis.del(key)));
  } while (cursor !== '0');
}

/**
 * The contract-suite target for one Redis deployment shape (plain, Sentinel, Cluster): a fresh key
 * prefix per case isolates it, `peer()` opens a second replica on the same backend, `keyCount`
 * counts exactly this case's keys, and cleanup closes the stores and deletes the keys.
 */
export function redisContractTarget(url: () => string, admin: () => Redis | Redis[], tag: string) {
  // A multi-master cluster has its keys on several nodes: count and delete on each.
  const nodes = (): Redis[] => [admin()].flat();
  return async () => {
    const prefix = `nlgate-${tag}-${randomBytes(6).toString('hex')}:`;
    const stores: RedisStore[] = [];
    const open = async (caps?: Partial<StoreCaps>, keys = prefix): Promise<RedisStore> => {
      const store = new RedisStore({ url: url(), prefix: keys, log: silentLogger, caps });
      stores.push(store);
      await store.ping();
      return store;
    };
    const store = await open();
    return {
      store,
      peer: () => open(),
      // Its own prefix under this case's, so keyCount and cleanup see its keys too.
      capped: (caps: Partial<StoreCaps>) => open(caps, `${prefix}capped-${randomBytes(3).toString('hex')}:`),
      keyCount: async () => (await Promise.all(nodes().map((n) => countKeys(n, prefix)))).reduce((a, b) => a + b, 0),
      cleanup: async () => {
        await Promise.all(stores.map((s) => s.close()));
        await Promise.all(nodes().map((n) => deleteKeys(n, prefix)));
      },
    };
  };
}
