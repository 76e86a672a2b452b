/**
 * The MCP fast path (issue 25): a 2026-07-28 stateless `tools/call` of `ask`/`await`, `tools/list`
 * or `server/discover` answered without building an SDK `Server` and transport per request. It
 * serves only the plain cases, and answers them as the SDK path does: the SDK's own classifier
 * (`classifyInboundRequest`) validates the JSON-RPC shape, the `_meta` envelope and the header
 * cross-checks; the handlers are the ones the SDK server runs (runAskTool, runAwaitTool,
 * toolSurface, endpointCapabilities); and the answer is encoded as the SDK's 2026-07-28 codec
 * encodes it (`resultType`, cache fields, `_meta` serverInfo). Anything else — and anything whose
 * answer could depend on what the SDK does besides — is declined before any work is done, and the
 * SDK path serves it. test/mcp/fast-path-differential.test.ts holds the two paths to one answer.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  isSpecType,
  type CallToolResult,
  type JSONRPCRequest,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { runAskTool, runAwaitTool, type AskToolContext } from './ask.ts';
import type { McpCall } from './call.ts';
import { isPlainObject, isRequestId, MESSAGE_KEYS, onlyKeys, type Params } from '../json-shape.ts';
import { protocolError, unknownTool } from './render.ts';
import { DISCOVER_VERSIONS, INSTRUCTIONS, SERVER_INFO, endpointCapabilities, type ServerDeps } from './server.ts';
import { TASKS_EXTENSION } from './task-extension.ts';
import { toolSurface } from './tools.ts';
import { requestHeader } from '../../base/request-headers.ts';

/** The one revision the fast path answers (MCP 2026-07-28, stateless). */
const MODERN = '2026-07-28';
/** The methods it answers; everything else goes to the SDK. */
const SERVED = new Set(['tools/call', 'tools/list', 'server/discover']);
/** The reserved envelope keys (2026-07-28 "Request metadata"): the SDK lifts exactly these out of `_meta`. */
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY]);
/** SEP-2243's Base64 sentinel: an `Mcp-Name` in it is decoded by the SDK, so it is left to the SDK. */
const BASE64_SENTINEL = '=?base64?';
/** 2026-07-28 results whose operations are cacheable (SEP-2549): the SDK fills these defaults. */
const CACHE_DEFAULTS = { ttlMs: 0, cacheScope: 'private' };

/** A request the fast path has accepted: its JSON-RPC id, method, params (envelope keys lifted) and envelope. */
interface Accepted {
  id: string | number;
  method: string;
  params: Params;
  envelope: Params;
}

const CLIENT_INFO_KEYS = ['name', 'version'];

/** Client capabilities of the plainest kinds: none, `roots` (with or without `listChanged`), `sampling: {}`. */
function plainCapabilities(caps: unknown): boolean {
  if (!isPlainObject(caps)) return false;
  for (const k in caps) {
    const v = caps[k];
    if (!isPlainObject(v)) return false;
    if (k === 'roots' ? !onlyKeys(v, ['listChanged']) || (v.listChanged !== undefined && typeof v.listChanged !== 'boolean') : k !== 'sampling' || !onlyKeys(v, [])) return false;
  }
  return true;
}

/**
 * A plain 2026-07-28 request recognised by its shape alone: a JSON-RPC request of the four keys,
 * its method in the `Mcp-Method` header, and an envelope of the revision, the plainest client
 * capabilities and at most a `{ name, version }` client info. For such a message the SDK's
 * classifier answers "modern request of 2026-07-28, the body itself" (fast-path.test.ts holds the
 * two to that, on generated requests); what is not this plain goes to the classifier. Its zod
 * guards were ≈ 16 µs of a request in a loop (most of it failing the response schemas on a message
 * that is a request), and the largest frame of the fast path in `bench:profile mcp-2026` (issue 25).
 */
export function plainModernRequest(body: Params, version: string | undefined, methodHeader: string | undefined): JSONRPCRequest | undefined {
  if (version !== MODERN || !onlyKeys(body, MESSAGE_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || !isRequestId(id) || typeof method !== 'string' || method !== methodHeader || method === 'initialize') return undefined;
  if (!isPlainObject(params) || !isPlainObject(params._meta)) return undefined;
  const meta = params._meta;
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN || !onlyKeys(meta, [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY])) return undefined;
  const info = meta[CLIENT_INFO_META_KEY];
  if (info !== undefined && (!isPlainObject(info) || !onlyKeys(info, CLIENT_INFO_KEYS) || typeof info.name !== 'string' || typeof info.version !== 'string')) return undefined;
  return plainCapabilities(meta[CLIENT_CAPABILITIES_META_KEY]) ? (body as JSONRPCRequest) : undefined;
}

/** The message, when the SDK's classifier routes the request to the 2026-07-28 endpoint as a request. */
function classifiedModernRequest(body: Params, version: string | undefined, methodHeader: string | undefined, nameHeader: string | undefined): JSONRPCRequest | undefined {
  const outcome = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, mcpMethodHeader: methodHeader, mcpNameHeader: nameHeader, body });
  if (outcome.kind !== 'modern' || outcome.messageKind !== 'request' || outcome.classification.revision !== MODERN) return undefined;
  return outcome.message;
}

/**
 * Whether a request is one the fast path answers exactly as the SDK does, and its parts if so
 * (2026-07-28 "Streamable HTTP", SEP-2243, SEP-2575). Declines: other HTTP methods or media
 * types, batches, notifications, responses, anything the SDK's classifier refuses or routes to
 * 2025, a missing or mismatching standard header, an `Mcp-Name` in Base64, extra `_meta` keys
 * (a progress token and the like), extra params (a cursor, a task, multi-round-trip answers), and
 * for `tools/call` a log level or a client that declares elicitation or the tasks extension (those
 * can make the SDK stream, ask for input or make a task).
 */
export function acceptFast(req: Request, body: unknown): Accepted | undefined {
  if (req.method !== 'POST' || !isJsonContentType(requestHeader(req, 'content-type')) || !isPlainObject(body)) return undefined;
  const version = requestHeader(req, 'mcp-protocol-version');
  const methodHeader = requestHeader(req, 'mcp-method');
  const nameHeader = requestHeader(req, 'mcp-name');
  const message = plainModernRequest(body, version, methodHeader) ?? classifiedModernRequest(body, version, methodHeader, nameHeader);
  if (!message) return undefined;
  const { id, method } = message;
  if (!SERVED.has(method) || version !== MODERN || methodHeader !== method) return undefined;
  const raw = message.params;
  if (!isPlainObject(raw) || !isPlainObject(raw._meta)) return undefined;
  const meta = raw._meta;
  if (!Object.keys(meta).every((k) => ENVELOPE_KEYS.has(k))) return undefined;
  const { _meta: _lifted, ...params } = raw;
  const envelope: Params = meta;
  if (method !== 'tools/call') return onlyKeys(params, []) ? { id, method, params, envelope } : undefined;

  if (!onlyKeys(params, ['name', 'arguments']) || typeof params.name !== 'string' || (params.arguments !== undefined && !isPlainObject(params.arguments))) return undefined;
  if (!isSpecType.CallToolRequestParams(params)) return undefined;
  if (nameHeader !== params.name || nameHeader.startsWith(BASE64_SENTINEL)) return undefined;
  if (LOG_LEVEL_META_KEY in envelope) return undefined;
  const caps = envelope[CLIENT_CAPABILITIES_META_KEY];
  if (!isPlainObject(caps) || 'elicitation' in caps) return undefined;
  if (isPlainObject(caps.extensions) && Object.hasOwn(caps.extensions, TASKS_EXTENSION)) return undefined;
  return { id, method, params, envelope };
}

/**
 * The 2026-07-28 codec's encoding of a complete result (the SDK's `encodeResult`): `resultType`
 * stamped, cache fields on cacheable operations, the server's identity in `_meta` (spec PR #3002).
 */
export function encodeResult(method: string, result: Params): Params {
  const typed: Params = { ...result, resultType: 'complete', ...(method === 'tools/list' || method === 'server/discover' ? CACHE_DEFAULTS : {}) };
  const meta = typed._meta;
  if (meta === undefined) return { ...typed, _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return typed;
  return { ...typed, _meta: { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO } };
}

/**
 * A JSON-RPC answer as the SDK's per-request transport sends it: 200, one JSON body. Built from a
 * string, not with `Response.json`: on Node, @hono/node-server writes a string-bodied Response
 * straight to the socket, while `Response.json` makes an undici one whose body stream it must pump.
 */
function answer(message: Params): Response {
  return new Response(JSON.stringify(message), { status: 200, headers: { 'content-type': 'application/json' } });
}

/** An in-band JSON-RPC error (a handler's, HTTP 200); the codec maps -32002 to -32602 on this revision. */
function errorAnswer(id: string | number, err: unknown): Response {
  const e = protocolError(err);
  return answer({ jsonrpc: '2.0', id, error: { code: e.code === -32002 ? -32602 : e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } });
}

/**
 * The handler context the tools read (`ServerContext.mcpReq`), for a request the fast path
 * accepted: no progress token, no log level, no elicitation and no multi-round-trip answers, so
 * nothing is ever sent to the client before the result. Aborted when the client goes away.
 */
function contextOf(a: Accepted, signal: AbortSignal): ServerContext {
  const refuse = () => Promise.reject(new Error('the fast path sends nothing before the result'));
  return { mcpReq: { id: a.id, method: a.method, envelope: a.envelope, signal, requestState: () => undefined, notify: refuse, send: refuse } } as unknown as ServerContext;
}

/** The tool list without `execution` (deleted vocabulary on 2026-07-28; the codec strips it). */
function withoutExecution(tools: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return tools.map((t) => {
    if (!('execution' in t)) return t;
    const { execution: _deleted, ...rest } = t;
    return rest;
  });
}

/** Counts what the fast path served, per method (tests assert it served; metrics could read it). */
export type FastPathObserver = (method: string) => void;

/**
 * Answers an accepted 2026-07-28 request, or undefined to leave it to the SDK path. Work that
 * could fail before the SDK's handler would run (the tool surface its factory builds) declines
 * on failure, so the SDK path fails the same way; nothing with an effect runs before that.
 */
export async function serveFast(deps: ServerDeps, req: Request, call: McpCall, body: unknown, observe?: FastPathObserver): Promise<Response | undefined> {
  const a = acceptFast(req, body);
  if (!a) return undefined;
  const { gateway } = deps;
  let response: Response | undefined;
  if (a.method === 'server/discover') {
    const { capabilities } = await endpointCapabilities(gateway, call).catch(() => ({ capabilities: undefined }));
    if (!capabilities) return undefined;
    const { tasks: _deleted, ...advertised } = capabilities as Params;
    response = answer({ result: encodeResult(a.method, { supportedVersions: [...DISCOVER_VERSIONS], capabilities: advertised, instructions: INSTRUCTIONS }), jsonrpc: '2.0', id: a.id });
  } else if (a.method === 'tools/list') {
    try {
      const { tools } = await toolSurface(gateway, call.agent, { tasks: false });
      response = answer({ result: encodeResult(a.method, { tools: withoutExecution(tools as never) }), jsonrpc: '2.0', id: a.id });
    } catch (err) {
      response = errorAnswer(a.id, err);
    }
  } else {
    response = await callTool(deps, a, req, call);
  }
  if (response) observe?.(a.method);
  return response;
}

/** `tools/call` of `ask` or `await`, or of a name nothing publishes; an agent's own tool is the SDK's. */
async function callTool(deps: ServerDeps, a: Accepted, req: Request, call: McpCall): Promise<Response | undefined> {
  const { gateway } = deps;
  const name = a.params.name as string;
  // The SDK's factory lists the tools for every tools/call (its Mcp-Param-* check): a listing
  // that fails fails the call there, so it declines here.
  const surface = await toolSurface(gateway, call.agent).catch(() => undefined);
  if (!surface) return undefined;
  const route = surface.routes.get(name);
  if (route?.kind === 'agent') return undefined;
  if (!route) return errorAnswer(a.id, unknownTool(name));
  const t: AskToolContext = { gateway, sessions: deps.sessions, call, ctx: contextOf(a, req.signal), channel: {}, progressToken: undefined };
  const result = (route.kind === 'ask' ? await runAskTool(a.params.arguments, t) : await runAwaitTool(a.params.arguments, t)) as CallToolResult;
  return answer({ result: encodeResult(a.method, result as Params), jsonrpc: '2.0', id: a.id });
}
