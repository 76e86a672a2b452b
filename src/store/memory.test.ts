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
