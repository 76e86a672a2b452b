import { SdkHttpError } from '@modelcontextprotocol/client';

/** Messages of a 400 answer that mean "I do not know this session" (server-everything, the SDK's servers). */
const SESSION_MESSAGE = /session/i;

function errorMessageIn(text: unknown): string | undefined {
  if (typeof text !== 'string' || text.length === 0) return undefined;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof body?.error?.message === 'string' ? body.error.message : undefined;
  } catch {
    return text.slice(0, 200);
  }
}

/**
 * Whether an upstream HTTP failure means the server no longer knows the client's session (MCP
 * 2025-11-25 "Session Management"): 404 as the spec says, and 400 with a session error as servers
 * really answer after a restart (server-everything: `-32000 "Bad Request: No valid session ID
 * provided"`). The client must then start a new session.
 */
export function isUnknownSession(err: unknown): boolean {
  if (!SdkHttpError.isInstance(err)) return false;
  if (err.status === 404) return true;
  if (err.status !== 400) return false;
  const message = errorMessageIn((err.data as { text?: unknown } | undefined)?.text);
  return message !== undefined && SESSION_MESSAGE.test(message);
}
