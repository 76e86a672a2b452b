/** Prefix-scoped key helpers for the Redis store suites (never FLUSHDB: REDIS_URL may be shared). */
import type { Redis } from 'ioredis';

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
