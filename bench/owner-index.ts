/**
 * `npx tsx bench/owner-index.ts`: what counting a record against its owner costs the Redis store
 * (store.maxRecordsPerOwner): 20,000 A2A-task-sized puts (1.1 KB) 16 at a time, without an owner
 * and with one owner past its cap (every put trims that owner's oldest), three alternated rounds.
 * Prints µs per put: wall (the Redis server's time shows here) and the gateway process's CPU.
 */
import { RedisStore } from '../src/store/redis.ts';
import { startRedis } from '../test/support/redis.ts';
import { silentLogger } from '../src/base/logger.ts';
void (async () => {
  const redis = await startRedis();
  const store = new RedisStore({ url: redis.url, prefix: 'op:', log: silentLogger });
  const value = 'x'.repeat(1100);
  const run = async (owner: string | undefined, n: number) => {
    let i = 0;
    const t = process.hrtime.bigint(); const c = process.cpuUsage();
    await Promise.all(Array.from({ length: 16 }, async () => { while (i < n) { const k = i++; await store.putRecord('a2a-task', `task_${owner ?? 'none'}_${k}`, value, 600_000, owner); } }));
    const cu = process.cpuUsage(c);
    return { wallUs: Number(process.hrtime.bigint() - t) / 1000 / n, clientCpuUs: (cu.user + cu.system) / n };
  };
  await run(undefined, 5000); await run('ownerTagAAAAAAAAAAAAAA', 5000);
  for (let r = 0; r < 3; r++) {
    const a = await run(undefined, 20000), b = await run('ownerTagAAAAAAAAAAAAAA', 20000);
    console.log('no owner', a.wallUs.toFixed(1), a.clientCpuUs.toFixed(1), '| owner (at cap, trimming)', b.wallUs.toFixed(1), b.clientCpuUs.toFixed(1));
  }
  await store.close(); await redis.stop();
})();
