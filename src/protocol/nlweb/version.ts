/**
 * Which NLWeb generation a request speaks (v0.54 3.4 `api_version`, v0.55 3.4 `version`), so the
 * answer goes back in the shape that client parses (interop.md: "Answer a request that says 0.54 in
 * the v0.54 shape").
 */

/** The two wire generations the gateway answers in. */
export const WIRE_VERSIONS = ['0.54', '0.55'] as const;
export type WireVersion = (typeof WIRE_VERSIONS)[number];

/** "0.54", 0.54, "0.54.1" → [0, 54]; anything else → undefined. */
function majorMinor(value: unknown): [number, number] | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
  const m = /^v?(\d{1,3})\.(\d{1,3})(?:\.\d+)?$/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/**
 * The wire a raw request body asks for: `meta.version` or `meta.api_version` (either name, either
 * generation) below 0.55 means v0.54; 0.55, anything newer, anything unreadable or nothing means
 * v0.55 (the gateway's own version). Reads the unvalidated body, so even a refused request is
 * answered in the client's shape.
 */
export function requestedWireVersion(body: unknown): WireVersion {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return '0.55';
  const meta = (body as Record<string, unknown>).meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return '0.55';
  const m = meta as Record<string, unknown>;
  const declared = majorMinor(m.version) ?? majorMinor(m.api_version);
  if (declared === undefined) return '0.55';
  const [major, minor] = declared;
  return major === 0 && minor < 55 ? '0.54' : '0.55';
}
