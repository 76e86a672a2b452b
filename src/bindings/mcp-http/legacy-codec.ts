/**
 * The SDK's 2025 wire codec, as the session fast path (session-fast-path.ts) uses it: what every
 * per-request `Server` of the 2025 endpoint answers with (it negotiates no revision), so that the
 * fast path validates, orders and encodes results and errors exactly as the SDK path does.
 */
import { ProtocolError, Server, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { isPlainObject, type Params } from '../json-shape.ts';
import { SERVER_INFO } from './server.ts';


/** What the fast path uses of the codec (the SDK's internal `WireCodec`). */
export interface LegacyCodec {
  era: string;
  validateResult(method: string, raw: unknown): { ok: true; value: unknown } | { ok: false; reason: string; message?: string };
  validateNotification(method: string, raw: unknown): { ok: true; value: unknown } | { ok: false };
  encodeResult(method: string, result: unknown): unknown;
  encodeErrorCode(code: number): number;
}

/**
 * The codec, taken from one `Server` that negotiated no revision (as every per-request server of
 * the 2025 endpoint is). Undefined — and the session fast path off — if an SDK release no longer
 * offers it this way.
 */
export const legacyCodec: LegacyCodec | undefined = (() => {
  const server = new Server(SERVER_INFO) as unknown as { _wireCodec?: () => LegacyCodec };
  const codec = typeof server._wireCodec === 'function' ? server._wireCodec() : undefined;
  return codec?.era === '2025-11-25' ? codec : undefined;
})();

/** A thrown error as the SDK's dispatch answers it (Protocol `_onrequest`): its code when it has one, else -32603. */
export function errorMessage(codec: LegacyCodec, id: string | number, err: unknown): JSONRPCMessage {
  const e = err as { code?: unknown; message?: string; data?: unknown };
  const code = Number.isSafeInteger(e.code) ? (e.code as number) : -32603;
  return { jsonrpc: '2.0', id, error: { code: codec.encodeErrorCode(code), message: e.message ?? 'Internal error', ...(e.data !== undefined ? { data: e.data } : {}) } };
}

/** The keys the 2025 `RequestMeta` schema (a result's `_meta`) parses itself instead of passing them through. */
const PARSED_META_KEYS = ['progressToken', 'io.modelcontextprotocol/related-task', '__proto__'];

/**
 * A result the gateway's own tools made (renderNlwebResult: text blocks, the NLWeb response, its
 * `_meta`, `isError`) as the codec's `tools/call` validation returns it: members in the schema's
 * order, the rest passed through. Such a result always validates, so the validation's own cost
 * (≈ 6 µs of a session `ask`, `npm run bench:profile mcp`) is spared; anything not of that exact
 * shape is undefined, and validated by the codec. session-fast-path.test.ts holds the two to one
 * JSON text.
 */
export function ownToolResult(result: unknown): Params | undefined {
  if (!isPlainObject(result)) return undefined;
  const { _meta, content, structuredContent, isError, ...rest } = result;
  if (Object.keys(rest).length > 0 || !Array.isArray(content)) return undefined;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return undefined;
    const keys = Object.keys(block);
    if (keys.length !== 2 || keys[0] !== 'type') return undefined;
  }
  if (structuredContent !== undefined && (!isPlainObject(structuredContent) || Object.hasOwn(structuredContent, '__proto__'))) return undefined;
  if (_meta !== undefined && (!isPlainObject(_meta) || PARSED_META_KEYS.some((k) => Object.hasOwn(_meta, k)))) return undefined;
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  return {
    ...(_meta !== undefined ? { _meta } : {}),
    content,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError !== undefined ? { isError } : {}),
  };
}

/** A `tools/call` result as the SDK's tools/call seam returns it: validated by the codec (or already of its shape), then encoded. */
export function checkedToolResult(codec: LegacyCodec, result: unknown): unknown {
  const own = ownToolResult(result);
  if (own) return codec.encodeResult('tools/call', own);
  const checked = codec.validateResult('tools/call', result);
  if (!checked.ok) {
    throw checked.reason === 'not-in-era'
      ? new ProtocolError(-32603, 'No wire schema for tools/call in the resolved era')
      : new ProtocolError(-32602, `Invalid tools/call result: ${checked.message}`);
  }
  return codec.encodeResult('tools/call', checked.value);
}
