/**
 * The state store (design.md "State"): one interface, two implementations that pass one contract
 * suite (contract.ts). `createStore` builds the one a config names.
 */
import type { Logger } from '../base/logger.ts';
import { MemoryStore } from './memory.ts';
import type { RedisStoreOptions } from './redis.ts';
import type { Store } from './store.ts';

export type * from './store.ts';
export type { RedisStoreOptions } from './redis.ts';
export { MemoryBackend, MemoryStore, type MemoryStoreOptions } from './memory.ts';

/** The `store` section of the gateway config. */
export type StoreConfig = { kind: 'memory'; maxConversations?: number; maxRecords?: number; maxConversationsPerOwner?: number } | { kind: 'redis'; url: string; prefix?: string };

/**
 * Builds the store a config names (design.md "State"): in-process by default, Redis for replicas.
 * The Redis store (and ioredis: ~20 MiB and ~100 ms at start, issue 23) is loaded only when named.
 */
export async function createStore(config: StoreConfig, log?: Logger, tuning?: RedisStoreOptions['tuning']): Promise<Store> {
  if (config.kind === 'memory') return new MemoryStore({ log, maxConversations: config.maxConversations, maxRecords: config.maxRecords, maxConversationsPerOwner: config.maxConversationsPerOwner });
  const { RedisStore } = await import('./redis.ts');
  return new RedisStore({ url: config.url, prefix: config.prefix, log, tuning });
}
