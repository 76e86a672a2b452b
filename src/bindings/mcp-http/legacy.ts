import type { Principal } from '../../core/principal.ts';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  isInitializeRequest,
  isJSONRPCNotification,
  isJSONRPCResponse,
  isJsonContentType,
  readRequestBody,
  type InitializeRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import { toGatewayError } from '../../base/errors.ts';
import type { Logger } from '../../base/logger.ts';
import type { Store } from '../../store/store.ts';
import type { McpCall } from './call.ts';
import { jsonRpcError } from './guard.ts';
import { buildMcpServer, closeServer, type ServerDeps } from './server.ts';
import { atOrAbove } from './call.ts';
import { answersTopic, SessionExchanges, type OnSent } from './exchanges.ts';
import type { FastPathObserver } from './fast-path.ts';
import { SessionFastPath, type PlainSessionRequest } from './session-fast-path.ts';
import { sessionTopic } from './session-link.ts';
import { STREAM_NAMESPACE, type McpSession, type McpSessions } from './sessions.ts';
import { requestHeader } from '../../base/request-headers.ts';

/** Keep-alive comment interval on a GET stream; the stream's store mark lives twice as long. */
const KEEPALIVE_MS = 15_000;

/** What the 2025 endpoint needs besides the server factory's deps. */
export interface LegacyDeps extends ServerDeps {
  store: Store;
  sessions: McpSessions;
  bodyLimitBytes: number;
  log: Logger;
  /** Answer a session's plain requests without an SDK server (session-fast-path.ts; default on). */
  fastPath?: boolean;
  /** Told of every request the session fast path answered. */
  onFastPath?: FastPathObserver;
}

type CallBase = Pick<McpCall, 'agent' | 'credentials' | 'principal' | 'requestId'>;

/** The version a 2025 server answers `initialize` with (MCP "Version Negotiation"). */
function negotiated(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** Calls `done` once the response body has been sent or abandoned (the exchange is over). */
function whenSent(res: Response, done: () => void): Response {
  if (!res.body) {
    done();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done: end } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (end) {
        controller.close();
        done();
      } else controller.enqueue(value);
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => undefined);
      done();
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * 2025-era Streamable HTTP (MCP 2025-03-26 … 2025-11-25) with sessions that any replica serves:
 * the session id is minted on `initialize` and kept in the store; every request is answered by a
 * fresh server instance on a stateless SDK transport, so no conversation state lives in transport
 * memory. Only an in-flight exchange is local: a client's answer to a request the server sent on a
 * POST stream (elicitation, sampling) may be posted to any replica, and reaches the exchange through
 * the store's topics (no sticky sessions).
 */
export class LegacyEndpoint {
  /** Open exchanges per session on this replica: where client answers and cancels go. */
  private readonly exchanges: SessionExchanges;
  /** The plain requests of a session, answered without an SDK server (issue 25). */
  readonly fast: SessionFastPath | undefined;

  constructor(private readonly deps: LegacyDeps) {
    this.exchanges = new SessionExchanges(deps.store);
    this.fast = deps.fastPath === false ? undefined : new SessionFastPath(deps, this.exchanges, deps.onFastPath);
  }

  /** Serves one HTTP request of a 2025-era client; `plain` when the session fast path has accepted its body already. */
  handle(req: Request, base: CallBase, parsedBody?: unknown, onSent?: OnSent, plain?: PlainSessionRequest): Promise<Response> {
    // Not async: each method's own promise is the answer (an async switch cost a call two more, issue 25).
    switch (req.method) {
      case 'POST':
        return this.post(req, base, parsedBody, onSent, plain);
      case 'GET':
        return this.listen(req, base);
      case 'DELETE':
        return this.terminate(req, base);
      default:
        return Promise.resolve(jsonRpcError(405, -32000, 'Method not allowed.', { Allow: 'GET, POST, DELETE' }));
    }
  }

  /**
   * The caller's session a request names: 400 without the header, 404 when unknown — or another
   * principal's, answered exactly the same (the client starts over).
   */
  private session(req: Request, base: CallBase, readAhead = false): Promise<McpSession | Response> {
    const id = requestHeader(req, 'mcp-session-id');
    if (!id) return Promise.resolve(jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required'));
    // Not async: the store read's own promise, continued once (each async layer of a call cost it two, issue 25).
    return this.deps.sessions.get(id, base.principal, readAhead).then((session) => session ?? jsonRpcError(404, -32001, 'Session not found'));
  }

  /** POST: one JSON-RPC message or batch; `parsedBody` when the caller has read the body already. */
  private async post(req: Request, base: CallBase, parsedBody?: unknown, onSent?: OnSent, accepted?: PlainSessionRequest): Promise<Response> {
    if (!isJsonContentType(requestHeader(req, 'content-type'))) {
      return jsonRpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const accept = requestHeader(req, 'accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return jsonRpcError(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    let parsed = parsedBody;
    if (parsed === undefined) {
      const read = await readRequestBody(req, this.deps.bodyLimitBytes);
      if (read.tooLarge) return jsonRpcError(413, -32000, `Payload Too Large: the body is larger than ${this.deps.bodyLimitBytes} bytes`);
      try {
        parsed = JSON.parse(read.text);
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: the body is not JSON');
      }
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JSONRPCMessage[];
    // A plain request of a session (never an initialize) is answered without an SDK server if it can be.
    const plain = accepted ?? this.fast?.accept(req, parsed);
    const init = plain ? undefined : messages.find((m) => isInitializeRequest(m));
    if (init && isInitializeRequest(init)) {
      if (messages.length > 1) return jsonRpcError(400, -32600, 'Invalid Request: initialize must be sent alone');
      return this.initialize(req, parsed, init.params, base, onSent);
    }

    // A POST may ask: its session's conversation is read with the record (one store round trip).
    const session = await this.session(req, base, true);
    if (session instanceof Response) return session;
    const call: McpCall = { ...base, era: 'legacy', session };
    if (plain) return (await this.fast!.serve(plain, call, req, onSent)) ?? this.exchange(req, parsed, call, onSent);
    if (messages.every((m) => isJSONRPCResponse(m) || isJSONRPCNotification(m))) {
      // Answers to the server's own requests (elicitation, sampling) and cancels belong to an
      // exchange that may be open on another replica: they travel through the store to all of them.
      const relayed = messages.filter((m) => !isJSONRPCNotification(m) || m.method === 'notifications/cancelled');
      if (relayed.length > 0) await this.deps.store.publishTopic(answersTopic(session.id), JSON.stringify(relayed));
      return new Response(null, { status: 202 });
    }
    return this.exchange(req, parsed, call, onSent);
  }

  /** `initialize`: a new session in the store, answered by a server instance of its own (MCP "Lifecycle"). */
  private async initialize(req: Request, parsed: unknown, p: InitializeRequest['params'], base: CallBase, onSent?: OnSent): Promise<Response> {
    let session: McpSession;
    try {
      session = await this.deps.sessions.create({ protocolVersion: negotiated(p.protocolVersion), capabilities: p.capabilities ?? {}, clientInfo: p.clientInfo }, base.principal);
    } catch (err) {
      const e = toGatewayError(err);
      if (e.code !== 'PAYLOAD_TOO_LARGE') throw err;
      return jsonRpcError(e.mapping.http, e.mapping.jsonrpc, e.message);
    }
    const res = await this.exchange(req, parsed, { ...base, era: 'legacy', session }, onSent);
    if (!res.ok) {
      await this.deps.sessions.delete(session.id, base.principal);
      return res;
    }
    res.headers.set('mcp-session-id', session.id);
    return res;
  }

  /** One request/response exchange on a fresh server instance and a stateless SDK transport. */
  private async exchange(req: Request, parsedBody: unknown, call: McpCall, onSent?: OnSent): Promise<Response> {
    const server = await buildMcpServer(this.deps, call);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    // The client's answers to this exchange's requests, posted to any replica (no sticky sessions).
    const leave = await this.exchanges
      .enter(call.session!.id, { deliver: (m) => transport.onmessage?.(m), close: () => void transport.close().catch(() => undefined) })
      .catch(async (err: unknown) => {
        await closeServer(server).catch(() => undefined);
        throw err;
      });
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      leave();
      void closeServer(server).catch(() => undefined);
    };
    try {
      const res = await transport.handleRequest(req, { parsedBody });
      if (!onSent) return whenSent(res, done);
      onSent(done);
      return res;
    } catch (err) {
      done();
      throw err;
    }
  }

  /** GET: the session's stream for server messages; one per session (409 for a second one). */
  private async listen(req: Request, base: CallBase): Promise<Response> {
    if (!(requestHeader(req, 'accept') ?? '').includes('text/event-stream')) {
      return jsonRpcError(406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    }
    const session = await this.session(req, base);
    if (session instanceof Response) return session;
    const { store } = this.deps;
    // One claim, not a read and then a write: GETs racing on two replicas would both find none.
    if (!(await store.replaceRecord(STREAM_NAMESPACE, session.id, null, '1', 2 * KEEPALIVE_MS))) {
      return jsonRpcError(409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    }
    let timer: NodeJS.Timeout | undefined;
    let unsubscribe: (() => Promise<void>) | undefined;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearInterval(timer);
      void unsubscribe?.().catch(() => undefined);
      void store.deleteRecord(STREAM_NAMESPACE, session.id).catch(() => undefined);
    };
    const encoder = new TextEncoder();
    let push: ((message: string) => void) | undefined;
    // Messages for this session from any replica (upstream notifications between calls, session-link.ts).
    unsubscribe = await store.onTopic(sessionTopic(session.id), (raw) => void this.deliver(session.id, base.principal, raw).then((m) => m && push?.(m)));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (message) => {
          try {
            controller.enqueue(encoder.encode(`event: message\ndata: ${message}\n\n`));
          } catch {
            release();
          }
        };
        controller.enqueue(encoder.encode(': stream open\n\n'));
        timer = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(': keepalive\n\n'));
            void store.putRecord(STREAM_NAMESPACE, session.id, '1', 2 * KEEPALIVE_MS).catch(() => undefined);
          } catch {
            release();
          }
        }, KEEPALIVE_MS);
        timer.unref();
      },
      cancel: release,
    });
    req.signal.addEventListener('abort', release, { once: true });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': session.id } });
  }

  /**
   * A message published for a session, as the JSON-RPC notification its stream carries, or undefined
   * when it must not go out: a log below the level the session set (MCP "Logging").
   */
  private async deliver(sessionId: string, owner: Principal, raw: string): Promise<string | undefined> {
    let n: { method?: unknown; params?: { level?: unknown } };
    try {
      n = JSON.parse(raw) as typeof n;
    } catch {
      return undefined;
    }
    if (typeof n?.method !== 'string') return undefined;
    if (n.method === 'notifications/message') {
      const level = (await this.deps.sessions.get(sessionId, owner).catch(() => null))?.logLevel ?? 'debug';
      if (!atOrAbove(String(n.params?.level), level)) return undefined;
    }
    return JSON.stringify({ jsonrpc: '2.0', method: n.method, ...(n.params ? { params: n.params } : {}) });
  }

  /** DELETE: ends the session on every replica (MCP "Session Management"), and what agents kept for it. */
  private async terminate(req: Request, base: CallBase): Promise<Response> {
    const session = await this.session(req, base);
    if (session instanceof Response) return session;
    await this.deps.sessions.delete(session.id, base.principal);
    await this.deps.gateway.endSession?.(session.id);
    this.exchanges.closeAll(session.id);
    return new Response(null, { status: 200 });
  }
}
