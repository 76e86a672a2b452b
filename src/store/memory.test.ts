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
