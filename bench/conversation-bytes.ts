/**
 * `node_modules/.bin/node --expose-gc --import tsx bench/conversation-bytes.ts` (issue 23 item 4):
 * what one held first-turn conversation costs in each store, as the gateway records it (key
 * `<ownerTag>:conv_<token>`, one query, no upstream session), over CONV_N (10,000) conversations:
 * - memory store: heap bytes per conversation (`process.memoryUsage().heapUsed` after a full GC);
 * - Redis store: `used_memory` per conversation (keys and retention indexes together), and
 *   `MEMORY USAGE` of one conversation key.
 * Two shapes: every conversation from one owner (one client address), and each from its own owner
 * (a flood of addresses or principals).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { silentLogger } from '../src/base/logger.ts';
import { MemoryStore } from '../src/store/memory.ts';
import { RedisStore } from '../src/store/redis.ts';
import type { Store } from '../src/store/store.ts';
import { startRedis } from '../test/support/redis.ts';
import { createNlgate, functionAgent } from '../src/index.ts';

const N = Number(process.env.CONV_N ?? 10_000);
const caps = { maxConversations: 10 * N, maxRecords: 10 * N, maxConversationsPerOwner: 10 * N };
const turn = { maxPrev: 10, idleTtlMs: 86_400_000, maxPrevTotalChars: 4000 };

const tag = (who: string) => createHash('sha256').update(who).digest('base64url').slice(0, 22);
const conversationId = () => `conv_${randomBytes(16).toString('base64url')}`;
const ids = (oneOwner: boolean) => Array.from({ length: N }, (_, i) => `${tag(oneOwner ? 'anon:10.0.0.1' : `anon:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`)}:${conversationId()}`);

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 3; i++) collect();
}

async function record(store: Store, keys: string[]): Promise<void> {
  for (const key of keys) await store.recordTurn(key, { query: 'pasta', agent: 'up' }, turn);
}

async function memoryBytes(oneOwner: boolean): Promise<number> {
  const keys = ids(oneOwner);
  const store = new MemoryStore({ ...caps, sweepIntervalMs: 3_600_000 });
  gc();
  const before = process.memoryUsage().heapUsed;
  await record(store, keys);
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / N;
  await store.close();
  return bytes;
}

async function redisBytes(url: string, oneOwner: boolean): Promise<{ perConversation: number; oneKey: number | null }> {
  const admin = new Redis(url);
  await admin.flushall();
  const used = async () => Number((await admin.info('memory')).match(/used_memory:(\d+)/)![1]);
  const store = new RedisStore({ url, prefix: 'nlgate:', log: silentLogger, caps });
  await store.ping();
  await record(store, keys1());
  const base = await used();
  const keys = ids(oneOwner);
  await record(store, keys);
  const perConversation = ((await used()) - base) / N;
  const [, sample] = await admin.scan('0', 'MATCH', `*${keys[0]!.split(':')[1]}*`, 'COUNT', 100_000);
  const oneKey = sample[0] ? await admin.memory('USAGE', sample[0]) : null;
  await store.close();
  admin.disconnect();
  return { perConversation, oneKey };
  // The indexes exist before the measured run (one warm-up conversation per shape), so their fixed cost is not counted.
  function keys1(): string[] {
    return [`${tag(oneOwner ? 'anon:10.0.0.1' : 'anon:warm')}:${conversationId()}`];
  }
}

/**
 * Heap bytes per first-turn ask held by a whole in-process gateway (memory store, a function agent,
 * requests through `fetch`): what the store keeps plus anything else a held conversation pins.
 */
async function gatewayBytes(): Promise<number> {
  const agent = functionAgent({ name: 'up', description: 'answers', ask: async () => [{ '@type': 'Thing', name: 'Pasta', url: 'https://example.org/p' }] });
  const gw = await createNlgate(
    { store: { kind: 'memory', ...caps }, limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 } }, agents: [agent] },
    { logger: silentLogger },
  );
  const ask = () => gw.fetch(new Request('http://gw/ask', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":{"text":"pasta"}}' })).then((r) => r.text());
  for (let i = 0; i < 200; i++) await ask(); // warm: lazy loads, caches and pools are not per conversation
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++) await ask();
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / N;
  await gw.close();
  return bytes;
}

const redis = await startRedis();
try {
  console.log(`whole gateway (memory store, fetch, one caller): ${Math.round(await gatewayBytes())} B/first-turn ask (heap)`);
  for (const oneOwner of [true, false]) {
    const shape = oneOwner ? 'one owner' : 'an owner each';
    const mem = await memoryBytes(oneOwner);
    const red = await redisBytes(redis.url, oneOwner);
    console.log(`${shape.padEnd(14)} memory store ${Math.round(mem)} B/conversation (heap)   redis store ${Math.round(red.perConversation)} B/conversation (used_memory; one conversation key: MEMORY USAGE ${red.oneKey} B)`);
  }
} finally {
  await redis.stop();
}
