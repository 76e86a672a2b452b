import { context, SpanKind, SpanStatusCode, trace, type Context as OtelContext, type Span } from '@opentelemetry/api';
import type { Context, MiddlewareHandler } from 'hono';
import type { ServerResponse } from 'node:http';
import { routePath } from 'hono/route';
import { agentLabel, outcomeOfStatus, protocolOf, routeLabel } from './labels.ts';
import type { GatewayMetrics } from './metrics.ts';
import type { RequestStates } from './request-state.ts';
import { mcpFacts, nlipTraceFields } from './trace-fields.ts';
import { contextFromFields, contextFromHeaders, tracer, tracingActive } from './tracing.ts';
import { requestHeader } from '../base/request-headers.ts';

export interface HttpTelemetryOptions {
  metrics: GatewayMetrics;
  states: RequestStates;
  /** Configured agent names: the only values the `agent` label takes. */
  agents: ReadonlySet<string>;
}

/**
 * One Hono middleware for every inbound request (issue 13): request count and duration by protocol,
 * route template, agent and outcome; open streams; and, with tracing on, a server span (OTel HTTP
 * conventions, MCP conventions on `/mcp`) continuing the client's W3C trace context. A streamed
 * (SSE) response counts as open until its last byte or the client leaving, and is timed to then.
 */
export function httpTelemetry({ metrics, states, agents }: HttpTelemetryOptions): MiddlewareHandler {
  // Label sets are bounded, so each set's series is resolved once (instruments.ts) and kept here.
  const series = new Map<string, { histogram: { observe(v: number): void }; counter: { inc(): void } }>();
  const record = (protocol: string, route: string, agent: string, outcome: string, status: string, seconds: number) => {
    const key = `${protocol}\0${route}\0${agent}\0${outcome}\0${status}`;
    let s = series.get(key);
    if (!s) {
      s = { histogram: metrics.requestDuration.labels({ protocol, route, agent, outcome }), counter: metrics.requests.labels({ protocol, route, agent, outcome, status }) };
      series.set(key, s);
    }
    s.histogram.observe(seconds);
    s.counter.inc();
  };
  return async (c, next) => {
    const started = performance.now();
    const requestId = c.get('requestId');
    const state = states.open(requestId);
    const span = tracingActive() ? await startServerSpan(c) : undefined;
    try {
      if (span) await context.with(span.context, next);
      else await next();
    } catch (err) {
      states.close(requestId);
      span?.span.end();
      throw err;
    }
    // After next(), the route index is the handler that answered (not a later fallback that also matches).
    const route = routeLabel(routePath(c));
    const protocol = protocolOf(c.req.method, route);
    const finish = (cancelled: boolean) => {
      states.close(requestId);
      const status = c.res.status;
      const agent = agentLabel(agents, state.agent ?? c.req.param('agent'));
      const outcome = cancelled ? 'cancelled' : (state.outcome ?? outcomeOfStatus(status));
      record(protocol, route, agent, outcome, String(status), (performance.now() - started) / 1000);
      if (span) endServerSpan(span, route, status, cancelled);
    };
    const res = c.res;
    // On Node the response's own events tell the end (no second stream around the body); in
    // process (`app.request`), the body is watched instead.
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    const body = isEventStream(c, res) ? (outgoing ?? res.body) : null;
    if (body) {
      metrics.openStreams.inc({ protocol });
      const done = (cancelled: boolean) => {
        metrics.openStreams.dec({ protocol });
        finish(cancelled);
      };
      if (outgoing) onResponseEnd(outgoing, done);
      else c.res = new Response(watchBody(body as ReadableStream<Uint8Array>, done), { status: res.status, headers: res.headers });
    } else {
      finish(false);
    }
  };
}

/**
 * Whether the answer is an SSE stream, to be counted open until its end. A binding that streams says
 * so (`eventStream`, set by sse-stream.ts and the legacy binding); otherwise only a client that
 * accepts `text/event-stream` (MCP, A2A streaming) can get one, and only then are the response's
 * headers read: reading them makes @hono/node-server turn a lightweight response's header record
 * into a web `Headers`, ≈ 2–4 µs on every JSON answer (issue 25). The `body` of a lightweight
 * response is read last for the same reason (it builds a whole web Response).
 */
function isEventStream(c: Context, res: Response): boolean {
  const marked = c.get('eventStream');
  if (marked !== undefined) return marked;
  if (!(requestHeader(c.req.raw, 'accept') ?? '').includes('text/event-stream')) return false;
  return res.headers.get('content-type')?.startsWith('text/event-stream') === true;
}

/** Calls `done` once: when the response was written to its end (false) or its connection closed first (true). */
function onResponseEnd(outgoing: ServerResponse, done: (cancelled: boolean) => void): void {
  let ended = false;
  const end = (cancelled: boolean) => {
    if (ended) return;
    ended = true;
    done(cancelled);
  };
  outgoing.once('finish', () => end(false));
  outgoing.once('close', () => end(!outgoing.writableFinished));
}

/** Passes a response body through, calling `done` once: at its end (false) or when the client left (true). */
function watchBody(body: ReadableStream<Uint8Array>, done: (cancelled: boolean) => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = (cancelled: boolean) => {
    if (ended) return;
    ended = true;
    done(cancelled);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: last, value } = await reader.read();
        if (last) {
          controller.close();
          end(false);
        } else controller.enqueue(value);
      } catch (err) {
        controller.error(err);
        end(true);
      }
    },
    async cancel(reason) {
      end(true);
      await reader.cancel(reason);
    },
  });
}

/**
 * Starts the server span of a request in the client's trace: W3C headers first; without them, the
 * MCP `params._meta` or NLIP token submessages (trace-fields.ts). Reading the body for that costs a
 * clone of it, so it happens only with tracing on and only on those two protocols' POSTs.
 */
interface ServerSpan {
  span: Span;
  context: OtelContext;
  method: string;
  /** Named from the MCP message (`tools/call search`): keeps that name rather than the route's. */
  named: boolean;
}

async function startServerSpan(c: Context): Promise<ServerSpan> {
  const method = c.req.method;
  const path = c.req.path;
  let parent = contextFromHeaders(c.req.raw.headers);
  const attributes: Record<string, string | number> = {
    'http.request.method': method,
    'url.path': path,
    'url.scheme': new URL(c.req.url).protocol.replace(':', ''),
    'nlgate.request_id': c.get('requestId'),
  };
  const ua = requestHeader(c.req.raw, 'user-agent');
  if (ua) attributes['user_agent.original'] = ua.slice(0, 256);
  let name = method;
  const isMcp = path.endsWith('/mcp');
  const isNlip = /\/nlip\/?$/.test(path);
  if (method === 'POST' && (isMcp || isNlip) && requestHeader(c.req.raw, 'content-type')?.includes('json')) {
    const body = await c.req.raw
      .clone()
      .json()
      .catch(() => undefined);
    if (isMcp) {
      const facts = mcpFacts(body);
      if (facts.method) {
        attributes['mcp.method.name'] = facts.method;
        attributes['rpc.system'] = 'jsonrpc';
        name = facts.target ? `${facts.method} ${facts.target}` : facts.method;
      }
      if (facts.target && facts.method === 'tools/call') attributes['gen_ai.tool.name'] = facts.target;
      if (facts.target && facts.method === 'tools/call') attributes['gen_ai.operation.name'] = 'execute_tool';
      if (facts.requestId) attributes['jsonrpc.request.id'] = facts.requestId;
      if (!trace.getSpanContext(parent) && facts.fields.traceparent) parent = contextFromFields(facts.fields);
    } else {
      const fields = nlipTraceFields(body);
      if (!trace.getSpanContext(parent) && fields.traceparent) parent = contextFromFields(fields);
    }
  }
  const span = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span), method, named: name !== method };
}

/** Names the span `METHOD route` (HTTP server conventions) and records the status. */
function endServerSpan({ span, method, named }: ServerSpan, route: string, status: number, cancelled: boolean): void {
  span.setAttribute('http.response.status_code', status);
  if (route !== 'unmatched') {
    span.setAttribute('http.route', route);
    if (!named) span.updateName(`${method} ${route}`);
  }
  if (status >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', String(status));
  }
  if (cancelled) span.setAttribute('nlgate.cancelled', true);
  span.end();
}
