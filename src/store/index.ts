/**
 * The state store (design.md "State"): one interface, two implementations that pass one contract
 * suite (contract.ts). `createStore` builds the one a config names.
 */
import type { Logger } from '../base/logger.ts';
import { MemoryStore } from './memory.ts';
import type { RedisStoreOptions } from './redis.ts';
import type { Store, StoreCaps } from './store.ts';

export type * from './store.ts';
export type { RedisStoreOptions } from './redis.ts';
export { MemoryBackend, MemoryStore, type MemoryStoreOptions } from './memory.ts';

/** The `store` section of the gateway config. */
export type StoreConfig = ({ kind: 'memory' } | { kind: 'redis'; url: string; prefix?: string }) & Partial<StoreCaps>;

/**
 * Builds the store a config names (design.md "State"): in-process by default, Redis for replicas.
 * The Redis store (and ioredis: ~20 MiB and ~100 ms at start, issue 23) is loaded only when named.
 */
export async function createStore(config: StoreConfig, log?: Logger, tuning?: RedisStoreOptions['tuning']): Promise<Store> {
  const caps = { maxConversations: config.maxConversations, maxRecords: config.maxRecords, maxConversationsPerOwner: config.maxConversationsPerOwner, maxRecordsPerOwner: config.maxRecordsPerOwner };
  if (config.kind === 'memory') return new MemoryStore({ log, ...caps });
  const { RedisStore } = await import('./redis.ts');
  return new RedisStore({ url: config.url, prefix: config.prefix, log, tuning, caps: withoutUndefined(caps) });
}

/** The caps a config names (an absent one keeps the store's default rather than overriding it). */
function withoutUndefined(caps: Partial<StoreCaps>): Partial<StoreCaps> {
  return Object.fromEntries(Object.entries(caps).filter(([, v]) => v !== undefined));
}
