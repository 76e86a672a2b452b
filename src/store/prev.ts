/**
 * The bounds on a conversation's stored previous queries (design.md "State", issue 11 caps), shared
 * by the memory store; the Redis store's RECORD_TURN script applies the same rule in Lua.
 */

/** Keeps the last `maxPrev` queries, then drops the oldest while their total length is over `maxTotalChars`. */
export function keepPrev(prev: readonly string[], maxPrev: number, maxTotalChars?: number): string[] {
  const kept = maxPrev > 0 ? prev.slice(-maxPrev) : [];
  if (maxTotalChars === undefined) return kept;
  let total = kept.reduce((n, q) => n + q.length, 0);
  while (kept.length > 0 && total > maxTotalChars) total -= kept.shift()!.length;
  return kept;
}
