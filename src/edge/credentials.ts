/**
 * The inbound credential parser: `Authorization: Bearer <token>` (RFC 6750 2.1). Pure and total:
 * any header value gives a parse result, never an exception.
 */

/** RFC 6750 2.1 `b64token`: the characters a bearer token may have. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Longest credential looked at (a JWT with many claims fits; anything longer is refused unread). */
export const MAX_CREDENTIAL_CHARS = 8192;

export type ParsedCredential =
  | { ok: true; token: string }
  | { ok: false; reason: string };

/** RFC 6750 2.1: reads the token of a `Bearer` Authorization header value (scheme case-insensitive). */
export function parseBearer(header: string): ParsedCredential {
  if (header.length > MAX_CREDENTIAL_CHARS) return { ok: false, reason: 'The credential is too long' };
  const value = header.trim();
  const space = value.indexOf(' ');
  if (space < 0) return { ok: false, reason: 'Use "Authorization: Bearer <token>"' };
  if (value.slice(0, space).toLowerCase() !== 'bearer') return { ok: false, reason: 'Only the Bearer scheme is accepted' };
  const token = value.slice(space + 1).trim();
  if (!B64TOKEN.test(token)) return { ok: false, reason: 'The bearer token is malformed' };
  return { ok: true, token };
}

/** True when a token has the shape of a JWS compact serialization (three base64url segments). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
