import { describe, expect, it } from 'vitest';
import { runStoreContract } from './contract.ts';
import { MemoryBackend, MemoryStore } from './memory.ts';
import { runningPromise } from './contract-helpers.ts';

runStoreContract('memory', async () => {
  // A short sweep so the bounded-growth case sees memory reclaimed without any reads.
  const backend = new MemoryBackend({ sweepIntervalMs: 50 });
  const store = new MemoryStore({ backend });
  const peers: MemoryStore[] = [];
  return {
    store,
    peer: async () => {
      const peer = new MemoryStore({ backend });
      peers.push(peer);
      return peer;
    },
    capped: async (caps) => {
      const capped = new MemoryStore(caps);
      peers.push(capped);
      return capped;
    },
    keyCount: async () => backend.size(),
    cleanup: async () => {
      await Promise.all([store, ...peers].map((s) => s.close()));
    },
  };
});

describe('MemoryStore specifics', () => {
  const turn = { maxPrev: 5, idleTtlMs: 60_000 };

  it('holds at most maxConversations, forgetting the least recently used (regression: first-turn asks grew the process without end)', async () => {
    const store = new MemoryStore({ maxConversations: 3 });
    for (const id of ['a', 'b', 'c']) await store.recordTurn(id, { query: id, agent: 'x' }, turn);
    // Reading `a` makes it the most recently used: `b` is now the oldest.
    expect((await store.getConversation('a', 60_000))?.prev).toEqual(['a']);
    await store.recordTurn('d', { query: 'd', agent: 'x' }, turn);
    await store.recordTurn('e', { query: 'e', agent: 'x' }, turn);
    expect(store.backend.conversations.size).toBe(3);
    expect(await store.getConversation('b', 60_000)).toBeNull();
    expect(await store.getConversation('c', 60_000)).toBeNull();
    for (const id of ['a', 'd', 'e']) expect((await store.getConversation(id, 60_000))?.prev).toEqual([id]);
    // A later turn of a kept conversation appends to it; it is not a new entry.
    await store.recordTurn('a', { query: 'a2', agent: 'x' }, turn);
    expect((await store.getConversation('a', 60_000))?.prev).toEqual(['a', 'a2']);
    expect(store.backend.conversations.size).toBe(3);
    await store.close();
  });

  it('regression "anonymous traffic evicts authenticated users\' state" (issue 24, hole 3): anonymous conversations and records push out only anonymous ones', async () => {
    const store = new MemoryStore({ maxConversations: 3, maxRecords: 3 });
    const alice = 'p.aliceTagAliceTagAliceT'; // a verified owner's tag carries VERIFIED_OWNER_MARK
    await store.recordTurn(`${alice}:conv`, { query: 'mine', agent: 'x' }, turn);
    await store.putRecord('mcp-session', 'p.mcp_alice', 'session', 60_000);
    for (let i = 0; i < 50; i++) {
      await store.recordTurn(`anon${i}:conv`, { query: 'flood', agent: 'x' }, turn);
      await store.putRecord('mcp-session', `mcp_anon${i}`, 'session', 60_000);
    }
    expect((await store.getConversation(`${alice}:conv`, 60_000))?.prev).toEqual(['mine']);
    expect(await store.getRecord('mcp-session', 'p.mcp_alice', 60_000)).toBe('session');
    // The anonymous class still holds only its cap: the latest three.
    expect(await store.getConversation('anon46:conv', 60_000)).toBeNull();
    expect((await store.getConversation('anon49:conv', 60_000))?.prev).toEqual(['flood']);
    expect(await store.getRecord('mcp-session', 'mcp_anon46', 60_000)).toBeNull();
    await store.close();
  });

  it('an owner past maxConversationsPerOwner recycles its own oldest conversation, never another owner\'s', async () => {
    const store = new MemoryStore({ maxConversationsPerOwner: 2 });
    await store.recordTurn('bob:one', { query: 'b1', agent: 'x' }, turn);
    for (const c of ['one', 'two', 'three']) await store.recordTurn(`eve:${c}`, { query: c, agent: 'x' }, turn);
    expect(await store.getConversation('eve:one', 60_000)).toBeNull();
    expect((await store.getConversation('eve:three', 60_000))?.prev).toEqual(['three']);
    expect((await store.getConversation('bob:one', 60_000))?.prev).toEqual(['b1']);
    // Reading makes one's own conversation the most recently used: the other one goes next.
    expect(await store.getConversation('eve:two', 60_000)).not.toBeNull();
    await store.recordTurn('eve:four', { query: 'four', agent: 'x' }, turn);
    expect(await store.getConversation('eve:three', 60_000)).toBeNull();
    expect(await store.getConversation('eve:two', 60_000)).not.toBeNull();
    await store.close();
  });

  it('holds at most maxRecords, forgetting the least recently read or written', async () => {
    const store = new MemoryStore({ maxRecords: 2 });
    await store.putRecord('alias:mcp', 'one', 'c1', 60_000);
    await store.putRecord('alias:mcp', 'two', 'c2', 60_000);
    expect(await store.getRecord('alias:mcp', 'one', 60_000)).toBe('c1');
    await store.putRecord('alias:mcp', 'three', 'c3', 60_000);
    expect(await store.getRecord('alias:mcp', 'two')).toBeNull();
    expect(await store.getRecord('alias:mcp', 'one')).toBe('c1');
    expect(await store.getRecord('alias:mcp', 'three')).toBe('c3');
    await store.close();
  });

  it('returns copies: mutating a returned record does not change the stored one', async () => {
    const store = new MemoryStore();
    const record = runningPromise({ request: { query: { text: 'x' } } });
    await store.createPromise(record, 60_000);
    const got = await store.getPromise(record.token);
    (got!.request as { query: { text: string } }).query.text = 'mutated';
    got!.status = 'done';
    expect(await store.getPromise(record.token)).toEqual(record);
    await store.close();
  });

  it('a conversation read is a copy: changing it changes nothing stored', async () => {
    const store = new MemoryStore();
    await store.recordTurn('c', { query: 'one', agent: 'x', upstreamSession: { n: [1] } }, turn);
    await store.setConversationAttr('c', 'k', 'v', 60_000);
    const read = (await store.getConversation('c', 60_000))!;
    read.prev.push('mutated');
    (read.upstream.x!.n as number[]).push(2);
    read.attrs.k = 'mutated';
    expect(await store.getConversation('c', 60_000)).toEqual({ id: 'c', prev: ['one'], upstream: { x: { n: [1] } }, attrs: { k: 'v' } });
    await store.close();
  });

  it('regression "a held first-turn conversation costs 2.3 KiB" (issue 23 item 4): a first turn holds its query, its expiry, its place in the retention order and nothing else', async () => {
    const store = new MemoryStore();
    await store.recordTurn('anon:c', { query: 'pasta', agent: 'x' }, turn);
    const held = store.backend.conversations.live('anon:c', Date.now());
    expect(held).toEqual({ prev: 'pasta', upstream: undefined, attrs: undefined, expiresAt: expect.any(Number), moved: expect.any(Number) });
    await store.recordTurn('anon:c', { query: 'more', agent: 'x' }, turn);
    expect(store.backend.conversations.live('anon:c', Date.now())?.prev).toEqual(['pasta', 'more']);
    await store.close();
  });

  it('the sweep stops when the last store sharing a backend closes (no timer keeps the process alive)', async () => {
    const backend = new MemoryBackend({ sweepIntervalMs: 20 });
    const a = new MemoryStore({ backend });
    const b = new MemoryStore({ backend });
    await a.putRecord('n', 'x', 'v', 10);
    await a.close();
    // b still holds the backend: the sweep keeps running and reclaims the expired record.
    await new Promise((r) => setTimeout(r, 80));
    expect(backend.size()).toBe(0);
    await b.close();
    await b.putRecord('n', 'y', 'v', 10);
    await new Promise((r) => setTimeout(r, 80));
    expect(backend.size()).toBe(1);
  });

  it('a closed store hears no more cancels and its ping rejects with STORE_UNAVAILABLE', async () => {
    const backend = new MemoryBackend();
    const a = new MemoryStore({ backend });
    const b = new MemoryStore({ backend });
    const seen: string[] = [];
    await a.onCancel((t) => seen.push(t));
    await a.close();
    await b.publishCancel('t');
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
    await expect(a.ping()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await b.close();
  });
});
