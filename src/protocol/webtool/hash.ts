import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal documents serialise equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** SHA-256 of the canonical JSON of `metadata` (hex): the fingerprint behind version lock-in. */
export function metadataHash(metadata: unknown): string {
  return createHash('sha256').update(canonicalJson(metadata)).digest('hex');
}
