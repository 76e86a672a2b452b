import { describe, expect, it } from 'vitest';
import { silentLogger } from '../base/logger.ts';
import { createStore, MemoryStore } from './index.ts';
import { RedisStore } from './redis.ts';

describe('createStore', () => {
  it('builds the in-process store for kind memory', async () => {
    const store = await createStore({ kind: 'memory' }, silentLogger);
    expect(store).toBeInstanceOf(MemoryStore);
    expect(store.kind).toBe('memory');
    await store.close();
  });

  it('builds a Redis store for kind redis, with the default prefix unless one is given', async () => {
    const plain = await createStore({ kind: 'redis', url: 'redis://127.0.0.1:1' }, silentLogger);
    const named = await createStore({ kind: 'redis', url: 'redis://127.0.0.1:1', prefix: 'tenant-7:' }, silentLogger);
    expect(plain).toBeInstanceOf(RedisStore);
    expect(plain.kind).toBe('redis');
    expect((plain as RedisStore).prefix).toBe('nlgate:');
    expect((named as RedisStore).prefix).toBe('tenant-7:');
    await Promise.all([plain.close(), named.close()]);
  });

  it('refuses a URL it cannot dial with CONFIG_ERROR (before any connection is made)', async () => {
    await expect(createStore({ kind: 'redis', url: 'http://127.0.0.1:6379' })).rejects.toMatchObject({ code: 'CONFIG_ERROR' });
  });

  it('a Redis store whose server is unreachable answers ping with STORE_UNAVAILABLE quickly', async () => {
    const store = await createStore({ kind: 'redis', url: 'redis://127.0.0.1:1' }, silentLogger);
    const started = Date.now();
    await expect(store.ping()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', retryAfter: 1 });
    expect(Date.now() - started).toBeLessThan(2500);
    await store.close();
  });
});
