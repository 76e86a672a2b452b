import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory.ts';
import type { Store } from '../store/store.ts';
import { createMetrics } from './metrics.ts';
import { instrumentStore } from './store.ts';

describe('instrumented store', () => {
  it('times each operation by name, counts failures, and answers exactly as the store does', async () => {
    const metrics = createMetrics();
    const inner = new MemoryStore();
    const failing = Object.assign(Object.create(inner) as Store, {
      getRecord: () => Promise.reject(new Error('store down')),
    });
    const store = instrumentStore(failing, metrics);
    await store.putRecord('ns', 'id', 'v', 10_000);
    expect(await store.getPromise('prm_none')).toBeNull();
    await expect(store.getRecord('ns', 'id')).rejects.toThrow('store down');
    expect(store.kind).toBe('memory');
    const text = await metrics.registry.metrics();
    expect(text).toContain('nlgate_store_command_duration_seconds_count{store="memory",command="putRecord"} 1');
    expect(text).toContain('nlgate_store_command_duration_seconds_count{store="memory",command="getRecord"} 1');
    expect(text).toContain('nlgate_store_errors_total{store="memory",command="getRecord"} 1');
    expect(text).not.toContain('nlgate_store_errors_total{store="memory",command="putRecord"}');
    await store.close();
  });
});
