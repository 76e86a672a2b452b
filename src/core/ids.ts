import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from one pre-filled pool (refilled from the CSPRNG when used up): a call to
 * the OS generator costs the same for 16 bytes as for 4 KiB, and tokens are minted on every ask.
 */
const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let poolOffset = POOL_SIZE;

function random(size: number): Buffer {
  if (poolOffset + size > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + size);
  poolOffset += size;
  return bytes;
}

/**
 * An unguessable token: 16 random bytes (128 bits) as base64url, behind a short readable prefix.
 * Used for promise tokens, conversation ids and session ids (all bearer credentials).
 */
export function newToken(prefix: string): string {
  return `${prefix}_${random(16).toString('base64url')}`;
}

/** This process's part of request ids: distinct per replica and worker. */
const REQUEST_ID_PREFIX = randomBytes(3).toString('hex');
let requestCounter = 0;

/** A request id for log correlation (not a credential, so a counter behind a per-process prefix). */
export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `${REQUEST_ID_PREFIX}${requestCounter.toString(16).padStart(6, '0')}`;
}
