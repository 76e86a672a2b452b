import { jsonTooDeep } from '../../protocol/json-depth.ts';
import { loadOnce } from '../../base/load-once.ts';
import { Hono } from 'hono';
import type { ServerResponse } from 'node:http';
import { bodyLimit } from '../body-limit.ts';
import { callerOf } from '../credentials.ts';
import { reportError } from '../report.ts';
import type { Binding, BindingContext } from '../types.ts';
import type { McpEngineOptions } from './runtime.ts';
import { jsonRpcError } from './guard.ts';

/**
 * The MCP binding (design.md "Mapping", NLWeb Appendix A): `/mcp` and `/agents/{name}/mcp` serve
 * every agent as MCP tools to clients of revision 2026-07-28 (the SDK's per-request handler) and of
 * the 2025 revisions (sessions any replica can serve, legacy.ts), from one server factory.
 */
function routes(ctx: BindingContext, opts: McpEngineOptions): Hono {
  const { gateway, settings } = ctx;
  const app = new Hono();
  // The MCP server SDK loads with the first MCP request (runtime.ts): a deployment no MCP client
  // calls never pays for it at start or in memory.
  const runtime = loadOnce(async () => {
    const rt = await import('./runtime.ts');
    return { rt, engine: rt.createMcpEngine(ctx, opts) };
  });

  const limit = bodyLimit({
    maxSize: settings.bodyLimitBytes,
    onError: () => jsonRpcError(413, -32000, `Payload Too Large: the body is larger than ${settings.bodyLimitBytes} bytes`),
  });

  app.all('/mcp', limit, async (c) => {
    const req = c.req.raw;
    const agent = c.req.param('agent');
    if (agent !== undefined && !gateway.listAgents().some((a) => a.name === agent)) {
      return jsonRpcError(404, -32602, `No agent is named "${agent}"`);
    }
    const { credentials, ...caller } = callerOf(c);
    const base = { agent, ...caller, credentials: credentials ?? {} };
    // The body is read once, straight from the socket, and both legs classify and serve from it
    // (the SDK's `parsedBody`): letting the SDK read it cloned the request into a web one, twice.
    let parsedBody: unknown;
    if (req.method === 'POST') {
      const text = await c.req.text();
      const tooDeep = jsonTooDeep(text);
      if (tooDeep) return jsonRpcError(400, -32600, `Invalid Request: ${tooDeep}`);
      try {
        parsedBody = JSON.parse(text);
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: the body is not JSON');
      }
    }
    try {
      // Loaded at the first MCP request; every later one takes it at once (an await cost it promises, issue 25).
      const { rt, engine } = runtime.now() ?? (await runtime());
      // A plain request of a 2025 session is one the SDK classifies as 2025: neither classifier runs (issue 25).
      const plain = engine.legacy.fast?.accept(req, parsedBody);
      if (!plain) {
        // A plain 2026-07-28 tools/call, tools/list or server/discover, without an SDK server (issue 25).
        const fast = await engine.fast?.(req, { ...base, era: 'modern' }, parsedBody);
        if (fast) {
          // Always one JSON body (fast-path.ts): the telemetry need not read its headers to know.
          c.set('eventStream', false);
          return fast;
        }
        if (!(await rt.isLegacyRequest(req, parsedBody, { maxRequestBodySize: settings.bodyLimitBytes }))) {
          return await engine.modern(req, { ...base, era: 'modern' }, parsedBody);
        }
      }
      const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
      const res = await engine.legacy.handle(req, base, parsedBody, outgoing ? (done) => void outgoing.once('close', done) : undefined, plain);
      if (rt.isWholeAnswer(res)) c.set('eventStream', false);
      return res;
    } catch (err) {
      reportError(gateway.log, c, err, 'MCP binding');
      return jsonRpcError(500, -32603, 'Internal error');
    }
  });
  return app;
}

/**
 * The MCP binding (NLWeb Appendix A over MCP Streamable HTTP) with internal switches: tests build
 * it with the fast path off to compare the two paths (test/mcp/fast-path-differential.test.ts).
 */
export function mcpHttpBindingWith(opts: McpEngineOptions): Binding {
  return { ...mcpHttpBinding, routes: (ctx) => routes(ctx, opts) };
}

/** The MCP binding (NLWeb Appendix A over MCP Streamable HTTP), mounted at `/mcp` and `/agents/{name}/mcp`. */
export const mcpHttpBinding: Binding = {
  name: 'mcp-http',
  perAgent: true,
  routes: (ctx) => routes(ctx, {}),
  edge: {
    claims: (_method, path) => path === '/mcp',
    // Streamable HTTP: every POST is a JSON-RPC message; GET (SSE) and DELETE have no body.
    jsonBody: (method, path) => method === 'POST' && path === '/mcp',
    renderError: (_c, err) =>
      jsonRpcError(err.mapping.http, err.mapping.jsonrpc, err.message, err.retryAfter !== undefined ? { 'Retry-After': String(err.retryAfter) } : {}),
  },
};
