import { ProtocolError, SUPPORTED_PROTOCOL_VERSIONS, Server, inputRequired, type CallToolResult, type ServerCapabilities } from '@modelcontextprotocol/server';
import { GatewayError } from '../../base/errors.ts';
import type { Gateway } from '../../core/gateway-types.ts';
import { runAskTool, runAwaitTool, startAskTask, type AskToolContext } from './ask.ts';
import { callOptions, clientChannel, roundsOf, tasksEnabled, type McpCall } from './call.ts';
import { Passthrough, forwardMap } from './passthrough.ts';
import { protocolError, renderToolError, renderToolResult, unknownTool, upstreamJsonRpc } from './render.ts';
import { clientSessionOf } from './session-link.ts';
import type { McpSessions } from './sessions.ts';
import { TaskIdParamsSchema, type McpTasks } from './tasks.ts';
import { toolSurface } from './tools.ts';
import { declaresTasks, registerTaskExtension, tasksExtensionCapability, type McpTaskExtension } from './task-extension.ts';

/** How the gateway introduces itself to MCP clients. */
export const SERVER_INFO = { name: 'nlgate', version: '0.1.0' };

/** The `instructions` every endpoint gives (MCP "Lifecycle"; 2026-07-28 `server/discover`). */
export const INSTRUCTIONS =
  'Ask questions in natural language with the `ask` tool (NLWeb v0.55). A slow answer comes back as a promise: ' +
  'call `await` with its promise_token. The other tools are the agents\' own structured tools.';

/** What every per-request server instance is built from. */
export interface ServerDeps {
  gateway: Gateway;
  sessions: McpSessions;
  tasks: McpTasks;
  /** The 2026-07-28 tasks extension (task-extension.ts). */
  taskExtension: McpTaskExtension;
}

/** Runs a non-tool request, turning gateway errors into JSON-RPC errors (ERROR_TABLE `jsonrpc`). */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw protocolError(err);
  }
}

/**
 * The capabilities an endpoint declares: tools and logging always, tasks for task-augmented
 * `tools/call` where the revision has them (MCP 2025-11-25 "Tasks"; no `tasks/list`: a task id is a
 * bearer handle, not listed), the rest when an agent passes it through.
 */
function capabilitiesFor(pass: Passthrough, tasks: boolean): ServerCapabilities {
  return {
    tools: {},
    logging: {},
    ...(tasks ? { tasks: { requests: { tools: { call: {} } }, cancel: {} } } : {}),
    ...(pass.serves('resources/list') ? { resources: pass.serves('resources/subscribe') ? { subscribe: true } : {} } : {}),
    ...(pass.serves('prompts/list') ? { prompts: {} } : {}),
    ...(pass.serves('completion/complete') ? { completions: {} } : {}),
  };
}

/**
 * What one request's endpoint declares (MCP "Capabilities"; 2026-07-28 `server/discover`): the
 * agents it reaches, what they pass through, and the capabilities that follow. One implementation
 * for the per-request SDK server (buildMcpServer) and the fast path (fast-path.ts).
 */
export async function endpointCapabilities(gateway: Gateway, call: McpCall): Promise<{ pass: Passthrough; capabilities: ServerCapabilities }> {
  const agents = call.agent !== undefined ? [gateway.resolveAgent(undefined, call.agent)] : gateway.listAgents().map((a) => a.name);
  const pass = new Passthrough(gateway, call, await forwardMap(gateway, agents));
  return { pass, capabilities: { ...capabilitiesFor(pass, tasksEnabled(call)), ...tasksExtensionCapability(call) } };
}

/**
 * The revisions `server/discover` names (MCP 2026-07-28 "Discovery"): the modern one the SDK lists,
 * then every 2025 one `initialize` negotiates on the same endpoint (see discoverEveryRevision).
 */
export const DISCOVER_VERSIONS: readonly string[] = [...new Set(['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS])];

/**
 * `server/discover` (MCP 2026-07-28) names every revision this endpoint serves: the SDK lists only
 * the modern ones, but the same `/mcp` answers 2025 clients through `initialize` (legacy.ts).
 * The SDK installs its discover handler after the factory returns, so the instance's answer is
 * wrapped rather than replaced.
 */
function discoverEveryRevision(server: Server): void {
  const instance = server as unknown as { _ondiscover?: () => { supportedVersions: string[] } & Record<string, unknown> };
  const original = instance._ondiscover?.bind(server);
  if (!original) return;
  instance._ondiscover = () => {
    const result = original();
    return { ...result, supportedVersions: [...new Set([...result.supportedVersions, ...SUPPORTED_PROTOCOL_VERSIONS])] };
  };
}

/**
 * One MCP server instance for one request (the SDK builds one per request for 2026-07-28; the
 * legacy path does the same for 2025 sessions): every handler only parses, calls the Gateway and
 * renders, so any replica serves any request.
 */
export async function buildMcpServer(deps: ServerDeps, call: McpCall): Promise<Server> {
  const { gateway } = deps;
  const { pass, capabilities } = await endpointCapabilities(gateway, call);
  const tasks = tasksEnabled(call);
  const server = new Server(SERVER_INFO, { capabilities, instructions: INSTRUCTIONS });
  discoverEveryRevision(server);

  // A 2025 session sees the tools as its own upstream sessions list them (its capabilities decide).
  const session = clientSessionOf(call, gateway.store);
  const surface = () => toolSurface(gateway, call.agent, { tasks, ...(session ? { session } : {}) });
  server.setRequestHandler('tools/list', () => guarded(async () => ({ tools: (await surface()).tools })));

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const progressToken = ctx.mcpReq._meta?.progressToken;
    const channel = clientChannel(call, ctx, progressToken);
    const t: AskToolContext = { gateway, sessions: deps.sessions, call, ctx, channel, progressToken };
    const asTask = tasks && request.params.task !== undefined;
    if (name === 'ask' && asTask) {
      // A CreateTaskResult; the SDK's tools/call check wants `content`, which a Result may carry besides.
      return { content: [], ...(await deps.tasks.create(await startAskTask(args, t), call)) } as CallToolResult;
    }
    // 2026-07-28 with the tasks extension (SEP-2663): the server decides; `ask` always becomes a task.
    if (name === 'ask' && declaresTasks(call, ctx)) return (await deps.taskExtension.createAsk(args, t)) as never;
    if (name === 'ask') return runAskTool(args, t).finally(channel.drain);
    // Tasks "Tool-Level Negotiation": only `ask` declares taskSupport; the others forbid it.
    if (asTask && name === 'await') throw new ProtocolError(-32601, `Tool ${name} does not support task-augmented calls`);
    if (name === 'await') return runAwaitTool(args, t);
    const route = (await guarded(surface)).routes.get(name);
    if (route?.kind !== 'agent') throw unknownTool(name);
    if (asTask) throw new ProtocolError(-32601, `Tool ${name} does not support task-augmented calls`);
    const task = call.era === 'modern' ? await deps.taskExtension.forTool(route, args ?? {}, t) : undefined;
    if (task) return task as never;
    let result: CallToolResult;
    try {
      const out = await gateway.callTool(route.agent, route.tool, args ?? {}, { ...callOptions(call, ctx.mcpReq.signal), client: channel, ...(session ? { session } : {}) });
      // 2026-07-28: the agent's tool asks the client first; the client calls again with its answers.
      if (out.inputRequired) return inputRequired(out.inputRequired as never) as never;
      result = renderToolResult(out);
    } catch (err) {
      if (err instanceof GatewayError && (err.code === 'TOOL_NOT_FOUND' || err.code === 'AGENT_NOT_FOUND')) throw unknownTool(name);
      // The upstream refused the request itself (invalid params, a tampered requestState, a missing
      // client capability): the client gets that JSON-RPC error, not a tool result.
      if (err instanceof GatewayError && upstreamJsonRpc(err) && err.code !== 'UPSTREAM_ERROR') throw protocolError(err);
      if (err instanceof GatewayError && upstreamJsonRpc(err)?.code === -32021) throw protocolError(err);
      result = renderToolError(err);
    }
    await channel.drain();
    return server.projectCallToolResult(result, route.outputSchema);
  });

  if (pass.serves('resources/list')) {
    server.setRequestHandler('resources/list', (r, ctx) => guarded(() => pass.list('resources/list', 'resources', r.params ?? {}, ctx.mcpReq.signal)) as never);
    server.setRequestHandler('resources/templates/list', (r, ctx) =>
      guarded(() => (pass.serves('resources/templates/list') ? pass.list('resources/templates/list', 'resourceTemplates', r.params ?? {}, ctx.mcpReq.signal) : Promise.resolve({ resourceTemplates: [] }))) as never,
    );
    server.setRequestHandler('resources/read', (r, ctx) => guarded(() => pass.first('resources/read', r.params, ctx.mcpReq.signal, roundsOf(call, ctx))) as never);
  }
  if (pass.serves('resources/subscribe')) {
    // MCP "Resources › Subscriptions": the upstream's notifications/resources/updated reach this
    // session's GET stream on whichever replica holds it (session-link.ts, legacy.ts).
    server.setRequestHandler('resources/subscribe', (r, ctx) => guarded(() => pass.broadcast('resources/subscribe', r.params, ctx.mcpReq.signal)) as never);
    server.setRequestHandler('resources/unsubscribe', (r, ctx) => guarded(() => pass.broadcast('resources/unsubscribe', r.params, ctx.mcpReq.signal)) as never);
  }
  if (pass.serves('prompts/list')) {
    server.setRequestHandler('prompts/list', (r, ctx) => guarded(() => pass.list('prompts/list', 'prompts', r.params ?? {}, ctx.mcpReq.signal)) as never);
    server.setRequestHandler('prompts/get', (r, ctx) => guarded(() => pass.getPrompt(r.params, ctx.mcpReq.signal, roundsOf(call, ctx))) as never);
  }
  if (pass.serves('completion/complete')) {
    server.setRequestHandler('completion/complete', (r, ctx) => guarded(() => pass.complete(r.params, ctx.mcpReq.signal)) as never);
  }

  if (tasks) {
    // MCP 2025-11-25 "Tasks": the task id is a promise token, so any replica answers these.
    // SDK 2.4 types tasks/* as wire vocabulary only, so they are registered with their params schema.
    const params = { params: TaskIdParamsSchema };
    server.setRequestHandler('tasks/get', params, (p) => guarded(() => deps.tasks.get(p.taskId, call)));
    server.setRequestHandler('tasks/result', params, (p, ctx) => guarded(() => deps.tasks.result(p.taskId, call, ctx.mcpReq.signal)));
    server.setRequestHandler('tasks/cancel', params, (p) => guarded(() => deps.tasks.cancel(p.taskId, call)));
  }

  if (call.era === 'modern') registerTaskExtension(server, deps.taskExtension, call);

  // MCP "Logging": a 2025 session keeps its level (any replica filters by it); agents get it too.
  server.setRequestHandler('logging/setLevel', (r, ctx) =>
    guarded(async () => {
      if (call.session) await deps.sessions.setLogLevel(call.session, r.params.level, call.principal);
      await pass.setLevel(r.params.level, ctx.mcpReq.signal);
      return {};
    }),
  );
  return server;
}

/**
 * Closes one exchange's server. The SDK makes a `ConnectionClosed` error on every close (to reject
 * what is still in flight), and capturing its stack was 2.3% of an MCP call (`npm run bench:profile
 * mcp`). The close is synchronous up to that point, so stack capture is off just around it; nothing
 * reads that stack (an exchange closes once its answer is sent, or when its client has left).
 */
export function closeServer(server: Server): Promise<void> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return server.close();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
