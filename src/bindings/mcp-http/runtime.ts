/**
 * What the MCP binding needs of the MCP server SDK, in one module the binding imports on its first
 * `/mcp` request (index.ts): everything here pulls in `@modelcontextprotocol/server` (~32 MiB and
 * ~200 ms at start, the largest import of the gateway, issue 23), which a deployment no MCP client
 * calls never loads.
 */
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { anonymousPrincipal } from '../../core/principal.ts';
import type { BindingContext } from '../types.ts';
import type { McpCall } from './call.ts';
import { serveFast, type FastPathObserver } from './fast-path.ts';
import { PublishedToolsServer } from './header-params.ts';
import { LegacyEndpoint } from './legacy.ts';
import { buildMcpServer } from './server.ts';
import { McpSessions } from './sessions.ts';
import { McpTaskExtension } from './task-extension.ts';
import { McpTasks } from './tasks.ts';
import { toolSurface } from './tools.ts';

export { isLegacyRequest };
export { isWholeAnswer } from './sse-answer.ts';

/** The two legs of the binding: the SDK's per-request handler (2026-07-28) and the 2025 session endpoint. */
export interface McpEngine {
  /** Serves a 2026-07-28 request; `call` holds the per-request facts the server factory needs. */
  modern(req: Request, call: McpCall, parsedBody: unknown): Promise<Response>;
  /** The fast path (fast-path.ts): a plain 2026-07-28 request's answer, or undefined for the SDK path. */
  fast?(req: Request, call: McpCall, parsedBody: unknown): Promise<Response | undefined>;
  legacy: LegacyEndpoint;
}

/** How the binding is built: internal switches (tests compare the fast path with the SDK path). */
export interface McpEngineOptions {
  /** Answer plain 2026-07-28 requests, and a 2025 session's plain requests, without the SDK (default on). */
  fastPath?: boolean;
  /** Told of every request a fast path answered (2026-07-28 or session). */
  onFastPath?: FastPathObserver;
}

/** Builds the binding's SDK handler and session endpoint once per mount (design.md "Mapping", NLWeb Appendix A). */
export function createMcpEngine({ gateway, settings }: BindingContext, opts: McpEngineOptions = {}): McpEngine {
  const sessions = new McpSessions(gateway.store, settings.limits.maxSessionRecordBytes, gateway);
  const deps = { gateway, sessions, tasks: new McpTasks(gateway, settings.promiseTtlMs), taskExtension: new McpTaskExtension(gateway, settings.promiseTtlMs) };
  // The SDK hands the factory the Request it was given: the per-request facts ride along with it.
  const calls = new WeakMap<Request, McpCall>();
  const handler = createMcpHandler(
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
  return {
    modern: (req, call, parsedBody) => {
      calls.set(req, call);
      return handler.fetch(req, parsedBody !== undefined ? { parsedBody } : undefined);
    },
    ...(opts.fastPath === false ? {} : { fast: (req: Request, call: McpCall, parsedBody: unknown) => serveFast(deps, req, call, parsedBody, opts.onFastPath) }),
    legacy: new LegacyEndpoint({
      ...deps,
      store: gateway.store,
      bodyLimitBytes: settings.bodyLimitBytes,
      log: gateway.log,
      ...(opts.fastPath === false ? { fastPath: false } : {}),
      ...(opts.onFastPath ? { onFastPath: opts.onFastPath } : {}),
    }),
  };
}
