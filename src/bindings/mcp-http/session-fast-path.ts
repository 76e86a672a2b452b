/**
 * The session fast path (issue 25): the plain requests of an initialized 2025 session — `tools/call`
 * of `ask` or `await` (or of a name nothing publishes), `tools/list` and `ping` — answered without
 * building an SDK `Server` and transport per request. The handlers are the SDK server's own
 * (runAskTool, runAwaitTool, toolSurface), the result goes through the SDK's own 2025 wire codec
 * (validation, key order, encoding, error codes; legacy-codec.ts), and the answer is framed as the SDK's session
 * transport frames it (sse-answer.ts). The session is read and owned as on the SDK path (legacy.ts
 * reads it before either path runs), cancels and DELETE reach the exchange as they reach an SDK
 * exchange (exchanges.ts). Everything else — and anything whose answer could depend on what the SDK
 * does besides — is declined before any work, and the SDK path serves it.
 * test/mcp/session-fast-path-differential.test.ts holds the two paths to one answer.
 */
import { SUPPORTED_PROTOCOL_VERSIONS, isJsonContentType, type JSONRPCMessage, type ServerContext } from '@modelcontextprotocol/server';
import { runAskTool, runAwaitTool, type AskToolContext } from './ask.ts';
import { elicitationModes, tasksEnabled, type McpCall } from './call.ts';
import type { OnSent, SessionExchanges } from './exchanges.ts';
import type { FastPathObserver } from './fast-path.ts';
import { isPlainObject, isRequestId, MESSAGE_KEYS, onlyKeys, type Params } from '../json-shape.ts';
import { checkedToolResult, errorMessage, legacyCodec, type LegacyCodec } from './legacy-codec.ts';
import { protocolError, unknownTool } from './render.ts';
import type { ServerDeps } from './server.ts';
import { clientSessionOf } from './session-link.ts';
import { SseAnswer, oneWriteAnswer } from './sse-answer.ts';
import { toolSurface } from './tools.ts';
import { requestHeader } from '../../base/request-headers.ts';

/** A plain request of a 2025 session, as the fast path accepted it. */
export interface PlainSessionRequest {
  id: string | number;
  method: 'tools/call' | 'tools/list' | 'ping';
  /** `tools/call`: the tool and its arguments. */
  name?: string;
  args?: Params;
}

/** The first revision of the 2026 era: a header naming it or later routes to the modern path. */
const FIRST_MODERN = '2026-07-28';

/**
 * Whether a request is a plain request of a 2025 session the fast path answers as the SDK does,
 * and its parts if so (MCP 2025-11-25 "Streamable HTTP"). Such a request is one the SDK's
 * classifier routes to the 2025 endpoint (a JSON-RPC request with no `_meta` at all, so no envelope
 * claim, and no 2026 `MCP-Protocol-Version`). Declines: other HTTP methods and media types, an
 * `Accept` without both types, no `Mcp-Session-Id`, an `MCP-Protocol-Version` the session transport
 * does not list, batches, notifications, responses, `initialize`, any other method, any key the
 * plain request has not — `_meta` (a progress token), `task`, a cursor, extra members — and
 * arguments that are not an object or carry an own `__proto__` (the SDK's schema drops that key).
 */
export function acceptSessionRequest(req: Request, body: unknown): PlainSessionRequest | undefined {
  if (req.method !== 'POST' || !isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || !isRequestId(id)) return undefined;
  if (!requestHeader(req, 'mcp-session-id') || !isJsonContentType(requestHeader(req, 'content-type'))) return undefined;
  const version = requestHeader(req, 'mcp-protocol-version');
  if (version !== undefined && (version >= FIRST_MODERN || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  const accept = requestHeader(req, 'accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (method === 'tools/call') {
    if (!isPlainObject(params) || !onlyKeys(params, ['name', 'arguments']) || typeof params.name !== 'string') return undefined;
    const args = params.arguments;
    if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, '__proto__'))) return undefined;
    return { id, method, name: params.name, ...(args !== undefined ? { args } : {}) };
  }
  if (method !== 'tools/list' && method !== 'ping') return undefined;
  return params === undefined || (isPlainObject(params) && onlyKeys(params, [])) ? { id, method } : undefined;
}

/** The handler context the tools read (`ServerContext.mcpReq`): nothing is ever sent to the client before the result. */
function contextOf(a: PlainSessionRequest, signal: AbortSignal): ServerContext {
  const refuse = () => Promise.reject(new Error('the session fast path sends nothing before the result'));
  return { mcpReq: { id: a.id, method: a.method, signal, requestState: () => undefined, notify: refuse, send: refuse } } as unknown as ServerContext;
}

/** Whether a relayed message is a valid `notifications/cancelled` for request `id` (Protocol `_oncancel`). */
function cancels(codec: LegacyCodec, message: JSONRPCMessage, id: string | number): boolean {
  const m = message as { method?: unknown; params?: { requestId?: unknown } };
  if (m.method !== 'notifications/cancelled' || m.params?.requestId !== id) return false;
  return codec.validateNotification('notifications/cancelled', message).ok;
}

/** The session fast path of one mount: its accept test and its answers. */
export class SessionFastPath {
  constructor(
    private readonly deps: ServerDeps,
    private readonly exchanges: SessionExchanges,
    private readonly observe?: FastPathObserver,
  ) {}

  /** The accepted parts of a plain session request, or undefined (the SDK path serves it). */
  accept(req: Request, body: unknown): PlainSessionRequest | undefined {
    return legacyCodec ? acceptSessionRequest(req, body) : undefined;
  }

  /**
   * Answers an accepted request of `call.session` (read, and owned by the caller, on the SDK path's
   * terms), or undefined to leave it to the SDK path: an `ask` of a session that declared
   * elicitation (the answer may ask the client first), and an agent's own tool (its upstream may
   * log or ask mid-call). Both decline before the call runs.
   */
  async serve(a: PlainSessionRequest, call: McpCall, req: Request, onSent?: OnSent): Promise<Response | undefined> {
    const codec = legacyCodec!;
    const session = call.session!;
    const { gateway } = this.deps;
    const tasks = tasksEnabled(call);
    let run: (ctx: ServerContext) => Promise<unknown>;
    if (a.method === 'ping') {
      // Nothing to cancel or close: answered at once, without opening an exchange.
      this.observe?.(a.method);
      return oneWriteAnswer({ result: codec.encodeResult('ping', {}), jsonrpc: '2.0', id: a.id });
    }
    if (a.method === 'tools/list') {
      const clientSession = clientSessionOf(call, gateway.store);
      run = async () => {
        const surface = await toolSurface(gateway, call.agent, { tasks, ...(clientSession ? { session: clientSession } : {}) }).catch((err: unknown) => {
          throw protocolError(err);
        });
        return codec.encodeResult('tools/list', { tools: surface.tools });
      };
    } else {
      const own = a.name === 'ask' || a.name === 'await';
      const tool = own ? this.ownTool(a, call) : await this.otherTool(a, call);
      if (tool === undefined) return undefined;
      // The SDK's tools/call seam: the result is validated (and rebuilt in its schema's order) by the era's codec.
      run = (ctx) => tool(ctx).then((result) => checkedToolResult(codec, result));
    }
    this.observe?.(a.method);
    return this.exchange(codec, a, session.id, req, run, onSent);
  }

  /** How a `tools/call` of the gateway's own `ask` or `await` runs on the fast path, or undefined to decline it. */
  private ownTool(a: PlainSessionRequest, call: McpCall): ((ctx: ServerContext) => Promise<unknown>) | undefined {
    const { gateway } = this.deps;
    const t = (ctx: ServerContext): AskToolContext => ({ gateway, sessions: this.deps.sessions, call, ctx, channel: {}, progressToken: undefined });
    if (a.name === 'await') return (ctx) => runAwaitTool(a.args, t(ctx));
    if (elicitationModes(call.session!.capabilities).size > 0) return undefined;
    return (ctx) => runAskTool(a.args, t(ctx));
  }

  /**
   * Any other name: an agent's tool is the SDK's (undefined: declined); a name nothing publishes is
   * -32602 (MCP "Tools › Error Handling").
   */
  private async otherTool(a: PlainSessionRequest, call: McpCall): Promise<((ctx: ServerContext) => Promise<unknown>) | undefined> {
    const { gateway } = this.deps;
    const clientSession = clientSessionOf(call, gateway.store);
    let routes: Awaited<ReturnType<typeof toolSurface>>['routes'];
    try {
      routes = (await toolSurface(gateway, call.agent, { tasks: tasksEnabled(call), ...(clientSession ? { session: clientSession } : {}) })).routes;
    } catch (err) {
      return () => Promise.reject(protocolError(err));
    }
    if (routes.get(a.name!)?.kind === 'agent') return undefined;
    return () => Promise.reject(unknownTool(a.name!));
  }

  /**
   * One exchange, as the SDK path runs it: open on this replica until its answer is over (a cancel
   * posted to any replica aborts the call, a DELETE of the session ends the answer), the call aborted
   * when the client goes away first, and answered — unless aborted — with the result or the error.
   * A cancelled call gets no answer and its stream stays open, kept alive, until the client leaves
   * or the session ends, as the SDK's does.
   */
  private async exchange(codec: LegacyCodec, a: PlainSessionRequest, sessionId: string, req: Request, run: (ctx: ServerContext) => Promise<unknown>, onSent?: OnSent): Promise<Response> {
    const controller = new AbortController();
    let settled = false;
    let over = false;
    let leave = (): void => undefined;
    const finish = (message?: JSONRPCMessage) => {
      over = true;
      answer.end(message);
      leave();
    };
    // What the SDK's server does when its transport closes: it aborts the handlers still running.
    const end = () => {
      if (!settled) controller.abort();
      finish();
    };
    const answer = new SseAnswer(end);
    // The client going away: on Node the response's own `close` (it also comes after a finished
    // answer, when it changes nothing); in process, the request's signal.
    if (onSent) onSent(end);
    else req.signal.addEventListener('abort', end, { once: true });
    const exchange = {
      deliver: (m: JSONRPCMessage) => {
        if (!settled && cancels(codec, m, a.id)) controller.abort((m as { params?: { reason?: unknown } }).params?.reason);
      },
      close: end,
    };
    try {
      // A session whose topic is heard here already (any call after its first): entered at once, no await.
      leave = this.exchanges.enterHeard(sessionId, exchange) ?? (await this.exchanges.enter(sessionId, exchange));
    } catch (err) {
      // The store could not be subscribed to: the SDK path fails the same way (HTTP 500, index.ts).
      finish();
      throw err;
    }
    // Over already (the client left while the topic was being subscribed to): nothing to run.
    if (over) {
      leave();
      return answer.response;
    }
    const answerWith = (message: JSONRPCMessage) => {
      settled = true;
      if (!controller.signal.aborted) finish(message);
    };
    void run(contextOf(a, controller.signal)).then(
      (result) => answerWith({ result, jsonrpc: '2.0', id: a.id } as JSONRPCMessage),
      (err: unknown) => answerWith(errorMessage(codec, a.id, err)),
    );
    return answer.response;
  }
}
