/**
 * The state store (design.md "State"): one interface, two implementations that pass one contract
 * suite (contract.ts). `createStore` builds the one a config names.
 */
import type { Logger } from '../base/logger.ts';
import { MemoryStore } from './memory.ts';
import { RedisStore, type RedisStoreOptions } from './redis.ts';
import type { Store } from './store.ts';

export type * from './store.ts';
export { MemoryBackend, MemoryStore, type MemoryStoreOptions } from './memory.ts';
export { RedisStore, storeUnavailable, toStoreError, type RedisStoreOptions } from './redis.ts';
export { parseRedisUrl, type RedisTarget, type RedisTuning } from './redis-url.ts';

/** The `store` section of the gateway config. */
export type StoreConfig = { kind: 'memory'; maxConversations?: number; maxRecords?: number; maxConversationsPerOwner?: number } | { kind: 'redis'; url: string; prefix?: string };

/** Builds the store a config names (design.md "State"): in-process by default, Redis for replicas. */
export function createStore(config: StoreConfig, log?: Logger, tuning?: RedisStoreOptions['tuning']): Store {
  if (config.kind === 'memory') return new MemoryStore({ log, maxConversations: config.maxConversations, maxRecords: config.maxRecords, maxConversationsPerOwner: config.maxConversationsPerOwner });
  return new RedisStore({ url: config.url, prefix: config.prefix, log, tuning });
}
