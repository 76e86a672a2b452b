import { jsonTooDeep } from '../../protocol/json-depth.ts';
import { Hono } from 'hono';
import type { ServerResponse } from 'node:http';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { anonymousPrincipal } from '../../core/principal.ts';
import { bodyLimit } from '../body-limit.ts';
import { callerOf } from '../credentials.ts';
import { reportError } from '../report.ts';
import type { Binding, BindingContext } from '../types.ts';
import type { McpCall } from './call.ts';
import { jsonRpcError } from './guard.ts';
import { LegacyEndpoint } from './legacy.ts';
import { PublishedToolsServer } from './header-params.ts';
import { buildMcpServer } from './server.ts';
import { toolSurface } from './tools.ts';
import { McpSessions } from './sessions.ts';
import { McpTasks } from './tasks.ts';
import { McpTaskExtension } from './task-extension.ts';

/**
 * The MCP binding (design.md "Mapping", NLWeb Appendix A): `/mcp` and `/agents/{name}/mcp` serve
 * every agent as MCP tools to clients of revision 2026-07-28 (the SDK's per-request handler) and of
 * the 2025 revisions (sessions any replica can serve, legacy.ts), from one server factory.
 */
function routes({ gateway, settings }: BindingContext): Hono {
  const app = new Hono();
  const sessions = new McpSessions(gateway.store, settings.limits.maxSessionRecordBytes);
  const deps = { gateway, sessions, tasks: new McpTasks(gateway, settings.promiseTtlMs), taskExtension: new McpTaskExtension(gateway, settings.promiseTtlMs) };
  // The SDK hands the factory the Request it was given: the per-request facts ride along with it.
  const calls = new WeakMap<Request, McpCall>();
  const modern = createMcpHandler(
    async (ctx) => {
      const call = (ctx.requestInfo && calls.get(ctx.requestInfo)) ?? { agent: undefined, credentials: {}, principal: anonymousPrincipal(undefined), era: 'modern' as const };
      const server = await buildMcpServer(deps, call);
      // A tools/call: the SDK checks its Mcp-Param-* headers against the published tool (SEP-2243).
      if (ctx.requestInfo?.headers.get('mcp-method') !== 'tools/call') return server;
      const { tools } = await toolSurface(gateway, call.agent);
      return new PublishedToolsServer(server, new Map(tools.map((t) => [t.name, t])));
    },
    { legacy: 'reject', maxRequestBodySize: settings.bodyLimitBytes, onerror: (err) => gateway.log.debug({ err: err.message }, 'MCP request rejected') },
  );
  const legacy = new LegacyEndpoint({ ...deps, store: gateway.store, bodyLimitBytes: settings.bodyLimitBytes, log: gateway.log });

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
      if (await isLegacyRequest(req, parsedBody, { maxRequestBodySize: settings.bodyLimitBytes })) {
        const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
        return await legacy.handle(req, base, parsedBody, outgoing ? (done) => void outgoing.once('close', done) : undefined);
      }
      calls.set(req, { ...base, era: 'modern' });
      return await modern.fetch(req, parsedBody !== undefined ? { parsedBody } : undefined);
    } catch (err) {
      reportError(gateway.log, c, err, 'MCP binding');
      return jsonRpcError(500, -32603, 'Internal error');
    }
  });
  return app;
}

/** The MCP binding (NLWeb Appendix A over MCP Streamable HTTP), mounted at `/mcp` and `/agents/{name}/mcp`. */
export const mcpHttpBinding: Binding = {
  name: 'mcp-http',
  perAgent: true,
  routes,
  edge: {
    claims: (_method, path) => path === '/mcp',
    // Streamable HTTP: every POST is a JSON-RPC message; GET (SSE) and DELETE have no body.
    jsonBody: (method, path) => method === 'POST' && path === '/mcp',
    renderError: (_c, err) =>
      jsonRpcError(err.mapping.http, err.mapping.jsonrpc, err.message, err.retryAfter !== undefined ? { 'Retry-After': String(err.retryAfter) } : {}),
  },
};
