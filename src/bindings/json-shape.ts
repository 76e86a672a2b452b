/**
 * The shape checks the bindings' fast paths make on a parsed body before they accept it without
 * their schema (MCP's fast-path.ts, session-fast-path.ts and legacy codec; A2A's plain-request.ts;
 * NLIP's plain-message.ts): each answers exactly what its schema answers for the plain cases that
 * path takes, and each path's property test holds it to that schema.
 */

export type Params = Record<string, unknown>;

/** The members of a JSON-RPC request (JSON-RPC 2.0 §4): a plain request has no others. */
export const MESSAGE_KEYS: readonly string[] = ['jsonrpc', 'id', 'method', 'params'];

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Params {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether every key of `o` is one of `allowed`. */
export function onlyKeys(o: Params, allowed: readonly string[]): boolean {
  for (const k in o) if (!allowed.includes(k)) return false;
  return true;
}

/** A JSON-RPC id as the SDK's `RequestIdSchema` takes it: a string, or a safe integer. */
export function isRequestId(id: unknown): id is string | number {
  return typeof id === 'string' || Number.isSafeInteger(id);
}
