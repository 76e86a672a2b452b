import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/base/logger.ts';
import { runStoreContract } from '../../src/store/contract.ts';
import { runningPromise } from '../../src/store/contract-helpers.ts';
import { bucketOf } from '../../src/store/redis-buckets.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { countKeys, deleteKeys, redisContractTarget } from '../support/redis-keys.ts';

describeRedis('RedisStore on a spawned redis-server', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedis();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  runStoreContract('redis', redisContractTarget(() => server.url, () => admin, 'test'));

  it('every key the store writes is under the prefix and has a TTL', async () => {
    const prefix = `nlgate-ttl-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ url: server.url, prefix, log: silentLogger });
    const token = randomBytes(16).toString('base64url');
    const now = Date.now();
    await store.createPromise({ token, agent: 'a', status: 'running', owner: 'o', leaseUntil: now - 1, createdAt: now, updatedAt: now }, 60_000);
    await store.claimExpiredLease(token, 'p', now + 1000, now);
    await store.recordTurn('c1', { query: 'q', agent: 'a', upstreamSession: { x: 1 } }, { maxPrev: 3, idleTtlMs: 60_000 });
    await store.setConversationAttr('c2', 'k', 'v', 60_000);
    await store.putRecord('ns', 'id', 'v', 60_000);
    await store.getRecord('ns', 'id', 60_000);
    await store.putBlob('ns', 'b', { meta: 'm', bytes: Buffer.from([0, 255]) }, 60_000);
    await store.limiter('agent:a', 5, 60_000).consume('k');
    await store.reserveQuota([{ key: 'q', limit: 10 }], 'r', 1, 60_000);
    const [, keys] = await admin.scan('0', 'MATCH', `${prefix}*`, 'COUNT', 1000);
    const b = bucketOf(token);
    expect(keys.sort()).toEqual(
      [`${prefix}leases:{p${b}}`, `${prefix}promise:{p${b}}:${token}`, `${prefix}conv:{ca}:c1`, `${prefix}conv:{ca}:c2`, `${prefix}rec:{ra}:ns:id`,
        // The retention indexes (issue 24, hole 3): ids without an owner tag share the empty owner.
        `${prefix}own:{ca}:`, `${prefix}lru:{ca}`, `${prefix}lru:{ra}`, `${prefix}blob:ns:b`, `${prefix}rl:agent:a:k`, `${prefix}{quota}:q`, `${prefix}{quota}:q:n`].sort(),
    );
    for (const key of keys) expect(await admin.pttl(key), key).toBeGreaterThan(0);
    await store.close();
    await deleteKeys(admin, prefix);
  });

  it('regression "the Redis store relies on maxmemory eviction" (issue 24, hole 3): a flood of owners leaves keys bounded by the caps, whatever the flood', async () => {
    const prefix = `nlgate-flood-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ url: server.url, prefix, log: silentLogger, caps: { maxConversations: 5, maxRecords: 5, maxConversationsPerOwner: 2 } });
    for (let i = 0; i < 200; i++) {
      await store.recordTurn(`anon${i % 40}:c${i}`, { query: `q${i}`, agent: 'a' }, { maxPrev: 3, idleTtlMs: 60_000 });
      await store.putRecord('alias:mcp', `h${i}`, 'conv', 60_000);
    }
    await store.recordTurn('p.alice:c', { query: 'mine', agent: 'a' }, { maxPrev: 3, idleTtlMs: 60_000 });
    // Conversations 5 + 1, their owners' indexes at most as many, records 5, and three class indexes.
    const [, convs] = await admin.scan('0', 'MATCH', `${prefix}conv:*`, 'COUNT', 1000);
    expect(convs).toHaveLength(6);
    expect(await countKeys(admin, prefix)).toBeLessThanOrEqual(6 + 6 + 5 + 3);
    expect((await store.getConversation('p.alice:c', 60_000))?.prev).toEqual(['mine']);
    await store.close();
    await deleteKeys(admin, prefix);
  });

  it('works on a client the caller passes in, honours its ioredis keyPrefix, and leaves that client open on close', async () => {
    const client = new Redis(server.url, { keyPrefix: 'kp:' });
    const prefix = `nlgate-own-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ client, prefix, log: silentLogger });
    const now = Date.now();
    const dead = runningPromise({ leaseUntil: now - 1 });
    await store.createPromise(dead, 60_000);
    // expiredLeases reads promise hashes by name inside Lua: the client's keyPrefix must apply there too.
    expect(await store.expiredLeases(now, 10)).toEqual([dead.token]);
    expect(await admin.exists(`kp:${prefix}promise:{p${bucketOf(dead.token)}}:${dead.token}`)).toBe(1);
    const seen: string[] = [];
    await store.onCancel((t) => seen.push(t));
    await store.publishCancel('c1');
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(['c1']);
    await store.close();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    await deleteKeys(admin, `kp:${prefix}`);
  });

  it('what a cap drops is deleted under the client\'s ioredis keyPrefix too (the scripts name those keys themselves)', async () => {
    const client = new Redis(server.url, { keyPrefix: 'kp:' });
    const prefix = `nlgate-kp-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ client, prefix, log: silentLogger, caps: { maxConversations: 2, maxConversationsPerOwner: 1, maxRecords: 1 } });
    await store.recordTurn('eve:one', { query: 'q', agent: 'a' }, { maxPrev: 3, idleTtlMs: 60_000 });
    await store.recordTurn('eve:two', { query: 'q', agent: 'a' }, { maxPrev: 3, idleTtlMs: 60_000 });
    expect(await admin.exists(`kp:${prefix}conv:{ca}:eve:one`)).toBe(0);
    expect(await admin.exists(`kp:${prefix}conv:{ca}:eve:two`)).toBe(1);
    await store.recordTurn('bob:one', { query: 'q', agent: 'a' }, { maxPrev: 3, idleTtlMs: 60_000 });
    await store.recordTurn('ann:one', { query: 'q', agent: 'a' }, { maxPrev: 3, idleTtlMs: 60_000 });
    // The class's oldest (eve:two) went, and its owner's index with it.
    expect(await admin.exists(`kp:${prefix}conv:{ca}:eve:two`, `kp:${prefix}own:{ca}:eve`)).toBe(0);
    await store.putRecord('ns', 'one', 'v', 60_000);
    await store.putRecord('ns', 'two', 'v', 60_000);
    expect(await admin.exists(`kp:${prefix}rec:{ra}:ns:one`)).toBe(0);
    expect(await admin.get(`kp:${prefix}rec:{ra}:ns:two`)).toBe('v');
    await store.close();
    client.disconnect();
    await deleteKeys(admin, `kp:${prefix}`);
  });
  it('a record and the conversation it names are read under the client\'s ioredis keyPrefix (the script builds the conversation\'s key from the record)', async () => {
    const client = new Redis(server.url, { keyPrefix: 'kp:' });
    const prefix = `nlgate-kl-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ client, prefix, log: silentLogger });
    await store.recordTurn('eve:c1', { query: 'q', agent: 'a' }, { maxPrev: 3, idleTtlMs: 60_000 });
    await store.putRecord('mcp-session', 's1', '{"conversationId":"c1"}', 60_000);
    const read = await store.getRecordAndConversation('mcp-session', 's1', 60_000, { field: 'conversationId', ownerTag: 'eve', idleTtlMs: 60_000 });
    expect(read.conversation?.record?.prev).toEqual(['q']);
    expect(await admin.exists(`kp:${prefix}conv:{ca}:eve:c1`)).toBe(1);
    await store.close();
    client.disconnect();
    await deleteKeys(admin, `kp:${prefix}`);
  });
});
