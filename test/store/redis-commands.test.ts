/**
 * What one store operation costs in Redis commands (issue 25), and that the one-script retention
 * keeps exactly what the memory store keeps (issue 24, hole 3), on a spawned redis-server.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/base/logger.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { RedisStore } from '../../src/store/redis.ts';
import type { Store, StoreCaps } from '../../src/store/store.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { deleteKeys } from '../support/redis-keys.ts';

const LONG = 60_000;
const turn = { maxPrev: 3, idleTtlMs: LONG };

describeRedis('RedisStore: commands per operation and retention', () => {
  let server: RedisServer;
  let admin: Redis;
  const prefixes: string[] = [];
  const stores: Store[] = [];
  beforeAll(async () => {
    server = await startRedis();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    for (const prefix of prefixes) await deleteKeys(admin, prefix);
    admin?.disconnect();
    await server?.stop();
  });

  const open = async (caps: Partial<StoreCaps>): Promise<RedisStore> => {
    const prefix = `nlgate-cmd-${randomBytes(4).toString('hex')}:`;
    prefixes.push(prefix);
    const store = new RedisStore({ url: server.url, prefix, log: silentLogger, caps });
    stores.push(store);
    await store.ping();
    return store;
  };

  /** The commands `op` sends on the store's connection. */
  const commandsOf = async (store: RedisStore, op: () => Promise<unknown>): Promise<string[]> => {
    const sent: string[] = [];
    const client = store.client as Redis;
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((command: { name: string }, stream?: unknown) => {
      sent.push(command.name);
      return send(command as never, stream as never);
    }) as typeof client.sendCommand;
    try {
      await op();
    } finally {
      client.sendCommand = send;
    }
    return sent;
  };

  it('regression "5.16 Redis commands per new conversation" (issue 25): every conversation and record operation is one command, even when a cap drops something', async () => {
    const store = await open({ maxConversations: 2, maxConversationsPerOwner: 2, maxRecords: 2 });
    // Each script once, so the counts below are not an EVALSHA miss and its EVAL.
    await store.recordTurn('warm:c', { query: 'q', agent: 'a' }, turn);
    await store.getConversation('warm:c', LONG);
    await store.setConversationAttr('warm:c', 'k', 'v', LONG);
    await store.putRecord('ns', 'warm', 'v', LONG);
    await store.getRecord('ns', 'warm', LONG);
    await store.deleteRecord('ns', 'warm');
    await store.recordTurn('warm:c', { query: 'q', agent: 'a' }, turn, { namespace: 'ns', id: 'warm', value: 'v', ttlMs: LONG });
    await store.getRecordAndConversation('ns', 'warm', LONG, { field: 'c', ownerTag: 'warm', idleTtlMs: LONG });

    // eve fills her quota, then a third conversation recycles her oldest; then bob pushes out the class's oldest.
    expect(await commandsOf(store, () => store.recordTurn('eve:one', { query: 'q', agent: 'a' }, turn))).toEqual(['evalsha']);
    expect(await commandsOf(store, () => store.recordTurn('eve:two', { query: 'q', agent: 'a', upstreamSession: { s: 1 } }, turn))).toEqual(['evalsha']);
    expect(await commandsOf(store, () => store.recordTurn('eve:three', { query: 'q', agent: 'a' }, turn))).toEqual(['evalsha']);
    expect(await store.getConversation('eve:one', LONG)).toBeNull();
    expect(await commandsOf(store, () => store.setConversationAttr('bob:one', 'k', 'v', LONG))).toEqual(['evalsha']);
    expect(await store.getConversation('eve:two', LONG)).toBeNull();
    expect(await commandsOf(store, () => store.getConversation('eve:three', LONG))).toEqual(['evalsha']);
    expect(await commandsOf(store, () => store.getConversation('nobody:x', LONG))).toEqual(['evalsha']);

    for (const id of ['r1', 'r2', 'r3']) expect(await commandsOf(store, () => store.putRecord('ns', id, 'v', LONG))).toEqual(['evalsha']);
    expect(await store.getRecord('ns', 'r1')).toBeNull();
    expect(await commandsOf(store, () => store.getRecord('ns', 'r2'))).toEqual(['evalsha']);
    expect(await commandsOf(store, () => store.getRecord('ns', 'r2', LONG))).toEqual(['evalsha']);
    expect(await commandsOf(store, () => store.deleteRecord('ns', 'r2'))).toEqual(['evalsha']);
    // A turn with a record beside it (an A2A task): one script for both.
    expect(await commandsOf(store, () => store.recordTurn('bob:two', { query: 'q', agent: 'a' }, turn, { namespace: 'ns', id: 'r4', value: 'task', ttlMs: LONG, owner: 'bob' }))).toEqual(['evalsha']);
    expect(await store.getRecord('ns', 'r4')).toBe('task');
    expect((await store.getConversation('bob:two', LONG))?.prev).toEqual(['q']);
    // A record (a 2025 MCP session) read with the conversation it names: one script for both.
    await store.putRecord('ns', 's1', JSON.stringify({ conversationId: 'two' }), LONG);
    const link = { field: 'conversationId', ownerTag: 'bob', idleTtlMs: LONG };
    expect(await commandsOf(store, () => store.getRecordAndConversation('ns', 's1', LONG, link))).toEqual(['evalsha']);
    expect((await store.getRecordAndConversation('ns', 's1', LONG, link)).conversation?.record?.prev).toEqual(['q']);
  });

  it('keeps exactly what the memory store keeps, whatever the turns, reads and attrs of verified and anonymous owners (property)', async () => {
    const owners = ['', 'anon1', 'p.alice'];
    const op = fc.record({
      kind: fc.constantFrom('turn', 'turn+put', 'read', 'attr', 'put', 'put-link', 'get', 'linked', 'linked-value', 'delete'),
      owner: fc.constantFrom(...owners),
      handle: fc.constantFrom('a', 'b', 'c', ':d'),
      session: fc.option(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }), { nil: undefined }),
      // What a record names as its conversation (getRecordAndConversation): a handle, or no usable one.
      names: fc.constantFrom<unknown>('a', 'b', ':d', '', null, 7, ['a'], undefined),
      fallback: fc.constantFrom(undefined, '', 'c'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40, size: 'max' }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 3 }), async (ops, maxConversations, maxConversationsPerOwner) => {
        const caps = { maxConversations, maxConversationsPerOwner, maxRecords: maxConversations };
        const redis = await open(caps);
        const memory = new MemoryStore(caps);
        try {
          for (const [i, o] of ops.entries()) {
            // An id without an owner tag (owner '') stands for the ids the contract's own tests use.
            const id = o.owner === '' ? `solo${o.handle}` : `${o.owner}:${o.handle}`;
            const run = async (store: Store): Promise<unknown> => {
              switch (o.kind) {
                case 'turn':
                  return store.recordTurn(id, { query: `q${i}`, agent: 'x', ...(o.session ? { upstreamSession: o.session } : {}) }, turn);
                case 'turn+put':
                  return store.recordTurn(id, { query: `q${i}`, agent: 'x' }, turn, { namespace: 'ns', id, value: `t${i}`, ttlMs: LONG });
                case 'read':
                  return store.getConversation(id, LONG);
                case 'attr':
                  return store.setConversationAttr(id, `k${i % 2}`, `v${i}`, LONG);
                case 'put':
                  // Every other value is a conversation's handle: what an alias holds ('linked-value').
                  return store.putRecord('ns', id, i % 2 === 0 ? `v${i}` : o.handle, LONG);
                case 'put-link':
                  return store.putRecord('ns', id, JSON.stringify({ v: i, conversationId: o.names }), LONG);
                case 'get':
                  return store.getRecord('ns', id, LONG);
                case 'linked':
                  return store.getRecordAndConversation('ns', id, LONG, { field: 'conversationId', ownerTag: o.owner, idleTtlMs: LONG, ...(o.fallback !== undefined ? { fallback: o.fallback } : {}) });
                case 'linked-value':
                  return store.getRecordAndConversation('ns', id, undefined, { ownerTag: o.owner, idleTtlMs: LONG, ...(o.fallback !== undefined ? { fallback: o.fallback } : {}) });
                case 'delete':
                  return store.deleteRecord('ns', id);
              }
            };
            expect(await run(redis)).toEqual(await run(memory));
          }
          // Every conversation and record either store could hold, compared without touching their order.
          for (const owner of owners) {
            for (const handle of ['a', 'b', 'c', ':d']) {
              const id = owner === '' ? `solo${handle}` : `${owner}:${handle}`;
              expect(await redis.getRecord('ns', id)).toEqual(await memory.getRecord('ns', id));
              expect(await redis.getConversation(id, LONG)).toEqual(await memory.getConversation(id, LONG));
            }
          }
        } finally {
          await memory.close();
        }
      }),
      { numRuns: 100 },
    );
  }, 60_000);

  it('keeps exactly what the memory store keeps of records written for owners, whatever the puts, claims, replaces, reads and deletes (property)', async () => {
    const owners = ['anon1', 'anon2', 'p.alice'];
    const op = fc.record({
      kind: fc.constantFrom('put', 'claim', 'replace', 'get', 'delete', 'unowned'),
      owner: fc.constantFrom(...owners),
      ns: fc.constantFrom('a2a-task', 'mcp-session'),
      handle: fc.constantFrom('a', 'b', 'c', 'd'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40, size: 'max' }), fc.integer({ min: 1, max: 3 }), async (ops, maxRecordsPerOwner) => {
        // The class holds every id the ops can name: an owner's count is what is compared here.
        const caps = { maxRecords: 100, maxRecordsPerOwner };
        const redis = await open(caps);
        const memory = new MemoryStore(caps);
        const idOf = (owner: string, handle: string) => (owner.startsWith('p.') ? `p.${handle}-${owner}` : `${handle}-${owner}`);
        try {
          for (const [i, o] of ops.entries()) {
            const id = idOf(o.owner, o.handle);
            const run = async (store: Store): Promise<unknown> => {
              switch (o.kind) {
                case 'put':
                  return store.putRecord(o.ns, id, `v${i}`, LONG, o.owner);
                case 'claim':
                  return store.replaceRecord(o.ns, id, null, `v${i}`, LONG, o.owner);
                case 'replace':
                  return store.replaceRecord(o.ns, id, await store.getRecord(o.ns, id), `v${i}`, LONG);
                case 'get':
                  return store.getRecord(o.ns, id);
                case 'delete':
                  return store.deleteRecord(o.ns, id, o.owner);
                case 'unowned':
                  return store.putRecord(o.ns, id, `v${i}`, LONG);
              }
            };
            expect(await run(redis)).toEqual(await run(memory));
          }
          for (const owner of owners) {
            for (const ns of ['a2a-task', 'mcp-session']) {
              for (const handle of ['a', 'b', 'c', 'd']) expect(await redis.getRecord(ns, idOf(owner, handle))).toEqual(await memory.getRecord(ns, idOf(owner, handle)));
            }
          }
        } finally {
          await memory.close();
        }
      }),
      { numRuns: 100 },
    );
  }, 60_000);
});
