/**
 * Blobs in Redis (issue 24: NLIP uploads held as bytes): one hash per blob, `<p>blob:<namespace>:<id>`,
 * with `meta` (text) and `bytes` (the raw bytes as a binary value, never base64), written with its
 * TTL in one MULTI so it never exists without one.
 */
import type { Cluster, Redis } from 'ioredis';
import type { StoredBlob } from './store.ts';

/** Writes a blob and its TTL atomically; rejects with the first failed command's error. */
export async function writeBlob(client: Redis | Cluster, key: string, blob: StoredBlob, ttlMs: number): Promise<void> {
  const bytes = Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset, blob.bytes.byteLength);
  const replies = await client.multi().hset(key, 'meta', blob.meta, 'bytes', bytes).pexpire(key, ttlMs).exec();
  const failed = replies?.find(([err]) => err);
  if (failed) throw failed[0];
}

/** Reads a blob; null when unknown or expired. */
export async function readBlob(client: Redis | Cluster, key: string): Promise<StoredBlob | null> {
  const fields = await client.hgetallBuffer(key);
  return fields.meta && fields.bytes ? { meta: fields.meta.toString('utf8'), bytes: fields.bytes } : null;
}
