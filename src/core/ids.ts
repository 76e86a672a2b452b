import { randomBytes } from 'node:crypto';

/**
 * An unguessable token: 16 random bytes (128 bits) as base64url, behind a short readable prefix.
 * Used for promise tokens, conversation ids and session ids (all bearer credentials).
 */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

/** A request id for log correlation (not a credential). */
export function newRequestId(): string {
  return randomBytes(6).toString('hex');
}
