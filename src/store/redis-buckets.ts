// Where a promise's Redis keys live: one of a fixed set of lease buckets, each a Cluster hash tag.

/** How many lease buckets promise state is spread over (each its own Cluster hash tag). */
export const PROMISE_BUCKETS = 16;

/** The lease bucket of a promise token: FNV-1a of the token, so every replica agrees. */
export function bucketOf(token: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) {
    h ^= token.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % PROMISE_BUCKETS;
}
