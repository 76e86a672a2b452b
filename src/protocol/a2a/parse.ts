import { jsonTooDeep } from '../json-depth.ts';
import type { z } from 'zod';
import {
  A2A_METHODS,
  JsonRpcRequestSchema,
  SendMessageParamsSchema,
  TaskIdParamsSchema,
  type JsonRpcRequest,
  type SendMessageParams,
} from './wire.ts';

/** JSON-RPC 2.0 / A2A 1.0 §9.5 error codes the parser answers with. */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_INVALID_PARAMS = -32602;

/** A validated JSON-RPC request; its id is null when the body had none. */
export type ParsedJsonRpcRequest = JsonRpcRequest & { id: string | number | null };

/** A parsed request, or the JSON-RPC error to answer with (never an exception). */
export type JsonRpcParseResult =
  | { ok: true; request: ParsedJsonRpcRequest }
  | { ok: false; id: string | number | null; error: { code: number; message: string } };

/** Parameter schemas of the methods the gateway serves; other methods go on to the SDK (method not found). */
const PARAMS: Record<string, z.ZodType> = {
  [A2A_METHODS.send]: SendMessageParamsSchema,
  [A2A_METHODS.stream]: SendMessageParamsSchema,
  [A2A_METHODS.getTask]: TaskIdParamsSchema,
  [A2A_METHODS.cancelTask]: TaskIdParamsSchema,
  [A2A_METHODS.subscribe]: TaskIdParamsSchema,
};

/** A short readable sentence from zod issues ("params.message.parts: a message needs at least one part"). */
export function issuesText(prefix: string, issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues
    .slice(0, 3)
    .map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join('.')}: ${i.message}`)
    .join('; ');
}

/**
 * A2A 1.0 §9 JSON-RPC: parses a request body (text) into a validated request. Bad JSON is -32700,
 * a bad envelope -32600, bad params of a known method -32602 (A2A's RequestMalformedError).
 * `recognise` may answer a parsed body without the schemas: it must answer exactly what they
 * would (the binding's fast path, held to that by its property test), or undefined to let them.
 */
export function parseJsonRpc(text: string, recognise?: (body: unknown) => ParsedJsonRpcRequest | undefined): JsonRpcParseResult {
  const tooDeep = jsonTooDeep(text);
  if (tooDeep) return { ok: false, id: null, error: { code: JSONRPC_INVALID_REQUEST, message: `Invalid request: ${tooDeep}` } };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, id: null, error: { code: JSONRPC_PARSE_ERROR, message: 'Parse error: the body is not JSON' } };
  }
  const recognised = recognise?.(body);
  if (recognised) return { ok: true, request: recognised };
  const rawId = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).id : undefined;
  const id = typeof rawId === 'string' || (typeof rawId === 'number' && Number.isInteger(rawId)) ? rawId : null;
  const envelope = JsonRpcRequestSchema.safeParse(body);
  if (!envelope.success) {
    const message = Array.isArray(body) ? 'Batch requests are not supported' : `Invalid request: ${issuesText('', envelope.error.issues)}`;
    return { ok: false, id, error: { code: JSONRPC_INVALID_REQUEST, message } };
  }
  const schema = PARAMS[envelope.data.method];
  if (schema) {
    const params = schema.safeParse(envelope.data.params);
    if (!params.success) return { ok: false, id, error: { code: JSONRPC_INVALID_PARAMS, message: `Invalid params: ${issuesText('params', params.error.issues)}` } };
    return { ok: true, request: { ...envelope.data, id, params: params.data } };
  }
  return { ok: true, request: { ...envelope.data, id } };
}

/**
 * A2A 1.0 §11 HTTP+JSON: validates a `message:send`/`message:stream` body; the error text on failure.
 * `recognise`, as parseJsonRpc's, may answer a body exactly as the schema would, or leave it to it.
 */
export function parseSendBody(body: unknown, recognise?: (body: unknown) => SendMessageParams | undefined): { ok: true; params: SendMessageParams } | { ok: false; message: string } {
  const recognised = recognise?.(body);
  if (recognised) return { ok: true, params: recognised };
  const parsed = SendMessageParamsSchema.safeParse(body);
  return parsed.success ? { ok: true, params: parsed.data } : { ok: false, message: `Invalid request: ${issuesText('', parsed.error.issues)}` };
}
