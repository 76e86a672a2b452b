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
/**
 * The owner tags of the N conversations, made before the measurement (the gateway memoizes them);
 * each conversation's key is made inside it, as the gateway mints one per first-turn ask, so a
 * held conversation's cost includes its key.
 */
const owners = (oneOwner: boolean) => Array.from({ length: N }, (_, i) => JSON.parse(JSON.stringify(tag(oneOwner ? 'anon:10.0.0.1' : `anon:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`))) as string);

/** A full GC that also lets finalizers run (what an earlier step left must not be freed inside a measurement). */
async function gc(): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Records one first-turn conversation per owner tag; returns the first key. */
async function record(store: Store, tags: string[]): Promise<string> {
  let first = '';
  for (const t of tags) {
    const key = `${t}:${conversationId()}`;
    first ||= key;
    await store.recordTurn(key, { query: 'pasta', agent: 'up' }, turn);
  }
  return first;
}

async function memoryBytes(oneOwner: boolean): Promise<number> {
  const tags = owners(oneOwner);
  const store = new MemoryStore({ ...caps, sweepIntervalMs: 3_600_000 });
  await gc();
  const before = process.memoryUsage().heapUsed;
  await record(store, tags);
  await gc();
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
  const tags = owners(oneOwner);
  await record(store, tags.slice(0, 1));
  const base = await used();
  const first = await record(store, tags);
  const perConversation = ((await used()) - base) / N;
  const [, sample] = await admin.scan('0', 'MATCH', `*${first.split(':')[1]}*`, 'COUNT', 100_000);
  const oneKey = sample[0] ? await admin.memory('USAGE', sample[0]) : null;
  const [, indexes] = await admin.scan('0', 'MATCH', 'nlgate:lru:*', 'COUNT', 100_000);
  for (const k of indexes) console.log(`  ${k}: ${await admin.zcard(k)} members, ${await admin.memory('USAGE', k, 'SAMPLES', '0')} B`);
  const [, own] = await admin.scan('0', 'MATCH', 'nlgate:own:*', 'COUNT', 100_000);
  let ownBytes = 0;
  for (const k of own) ownBytes += (await admin.memory('USAGE', k, 'SAMPLES', '0')) ?? 0;
  console.log(`  ${own.length} owner indexes: ${ownBytes} B`);
  await store.close();
  admin.disconnect();
  return { perConversation, oneKey };
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
  await gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++) await ask();
  await gc();
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
