import type { Client, Tool } from '@modelcontextprotocol/client';
import type { AdapterDeps, Agent, AgentDescription, CallContext, ClientSession, CommonAgentConfig, ToolDescription, ToolResult } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { buildAskCall, pickAskTool, upstreamRequest } from './ask-mapping.ts';
import { toolMayRunAgain } from '../../src/core/reruns.ts';
import { CallScopes, type Progress } from './call-scope.ts';
import type { McpAdapterConfig } from './config.ts';
import { listUpstreamTools, type UpstreamConnection } from './connection.ts';
import { plainReasonSignal, upstreamError } from './errors.ts';
import { cleanResult, forwardableMethods, forwardRequest } from './forward.ts';
import { callInRounds, forwardInRounds } from './rounds.ts';
import { callAsTask } from './task-call.ts';
import { askEvents, nlwebEvents, nlwebResponseIn, toToolResult, type McpToolResult } from './result-mapping.ts';
import { UpstreamSessions } from './upstream-sessions.ts';

/** A configured `mcp` agent: the common settings plus the kind's own. */
export type McpAgentConfig = McpAdapterConfig & CommonAgentConfig;

const DEFAULT_TIMEOUT_MS = 120_000;

/** An MCP tool as the gateway describes it. */
function describeTool(t: Tool): ToolDescription {
  return {
    name: t.name,
    ...(t.title ? { title: t.title } : {}),
    description: t.description ?? t.title ?? t.name,
    inputSchema: t.inputSchema as Record<string, unknown>,
    ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
    ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
    ...(t.execution ? { execution: { ...t.execution } } : {}),
  };
}

/**
 * An upstream MCP server as an agent (design.md "An adapter"): its tools are the agent's structured
 * tools, the canonical `ask` calls one of them (config `ask`), and resources, prompts, completions
 * and log levels pass through to MCP clients (`forward`).
 */
export class McpAgent implements Agent {
  readonly kind = 'mcp';
  readonly name: string;
  private readonly scopes = new CallScopes();
  private readonly sessions: UpstreamSessions;
  private tools: ToolDescription[] | undefined;

  constructor(
    private readonly config: McpAgentConfig,
    private readonly deps: AdapterDeps,
  ) {
    this.name = config.name;
    const base = {
      agent: this.name,
      config,
      baseDir: deps.baseDir,
      log: deps.log,
      scopes: this.scopes,
      ...(deps.upstream ? { http: deps.upstream } : {}),
      onToolsChanged: () => this.toolsChanged(),
    };
    this.sessions = new UpstreamSessions(config, base, deps.log);
  }

  /** Lists the upstream's tools (MCP `tools/list`) and what else it serves. */
  async describe(signal?: AbortSignal): Promise<AgentDescription> {
    return this.session(undefined).use(async (client) => {
      const tools = this.withTaskTools(await this.toolList(client, signal));
      const forwards = this.config.forward ? forwardableMethods(client.getServerCapabilities() ?? {}, client.getProtocolEra() === 'modern' ? 'modern' : 'legacy') : [];
      const server = client.getServerVersion();
      return {
        description: this.config.description ?? client.getInstructions()?.split('\n')[0] ?? `MCP server ${server?.name ?? this.name}`,
        tools,
        ...(forwards.length > 0 ? { forwards: { mcp: forwards } } : {}),
        capabilities: { streaming: true },
      };
    });
  }

  /** NLWeb ask through the mapped tool (config `ask`): progress while it runs, then its result. */
  async *ask(request: AskRequest, ctx: CallContext): AsyncGenerator<AgentEvent> {
    const session = this.session(ctx);
    const upstream = upstreamRequest(request, ctx.conversation);
    const call = await session.use(async (client) => buildAskCall(await this.toolList(client, ctx.signal), this.config.ask, upstream, this.name));
    yield* this.streamed(session, call.tool, call.arguments, ctx, askEvents);
  }

  /** Whether the tool asks are mapped to says it may run twice (MCP `readOnlyHint` / `idempotentHint`, issue 24). */
  async asksMayRunAgain(signal?: AbortSignal): Promise<boolean> {
    const tools = await this.session(undefined).use((client) => this.toolList(client, signal));
    return toolMayRunAgain(pickAskTool(tools, this.config.ask, this.name));
  }

  /** NLWeb 4.2 through an NLWeb-over-MCP upstream's own `await` tool (Appendix A.2). */
  async *await(token: string, action: 'checkin' | 'cancel', ctx: CallContext): AsyncGenerator<AgentEvent> {
    const session = this.session(ctx);
    const tools = await session.use((client) => this.toolList(client, ctx.signal));
    if (!tools.some((t) => t.name === 'await')) throw new GatewayError('INTERNAL_ERROR', `Agent "${this.name}" has no await tool`);
    yield* this.streamed(session, 'await', { promise_token: token, action }, ctx, (r) => {
      const resp = nlwebResponseIn(r);
      return resp ? nlwebEvents(resp) : askEvents(r);
    });
  }

  /** A structured call passed through (MCP `tools/call`), with progress, logs and elicitation relayed. */
  async callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
    const session = this.session(ctx);
    await session.use((client) => this.toolList(client, ctx.signal)); // how to call it (execution.taskSupport)
    return toToolResult(await this.invoke(session, name, args, ctx, (p) => ctx.client?.progress?.(p)));
  }

  /** MCP requests beyond tools (resources, prompts, completions, log level) passed through unchanged. */
  async forward(protocol: 'mcp', method: string, params: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
    if (protocol !== 'mcp' || !this.config.forward) throw new GatewayError('TOOL_NOT_FOUND', `Agent "${this.name}" does not serve ${method}`);
    // A shared upstream session is subscribed once for all its subscribers (and unsubscribed after the last).
    const uri = String(params.uri ?? '');
    if (method === 'resources/subscribe' && !this.sessions.subscribe(uri, ctx.session)) return {};
    if (method === 'resources/unsubscribe' && !this.sessions.unsubscribe(uri, ctx.session)) return {};
    try {
      return await this.session(ctx).use((client) =>
        this.scopes.run({ channel: ctx.client, signal: ctx.signal, requestId: ctx.requestId }, async () => {
          // 2026-07-28: a prompt or resource may ask the client first; that round goes back to it.
          const rounds = await forwardInRounds(client, method, params, ctx.client?.rounds, ctx.signal);
          return rounds?.resultType === 'input_required' ? rounds : rounds ? cleanResult(rounds) : forwardRequest(client, method, params, ctx.signal);
        }),
      );
    } catch (err) {
      if (method === 'resources/subscribe') this.sessions.unsubscribe(uri, ctx.session);
      throw upstreamError(err, this.name, ctx.signal);
    }
  }

  /**
   * The tools as one client session sees them: what its own upstream session lists (the upstream
   * saw that client's capabilities: tools needing elicitation or sampling only for clients that can
   * answer). Undefined for upstreams whose session is shared.
   */
  async toolsFor(session: ClientSession, signal?: AbortSignal): Promise<ToolDescription[] | undefined> {
    // A forwarding agent's sessions carry the caller's credential, which a listing does not have.
    if (this.config.forwardCredentials) return undefined;
    const pending = this.sessions.toolsFor(session, (conn) => conn.use(async (client) => this.withTaskTools((await listUpstreamTools(client, signal)).map(describeTool))));
    if (!pending) return undefined;
    try {
      return await pending;
    } catch (err) {
      throw upstreamError(err, this.name, signal);
    }
  }

  /** The client session ended: close its own upstream session and forget its subscriptions. */
  async endSession(sessionId: string): Promise<void> {
    await this.sessions.end(sessionId);
  }

  async close(): Promise<void> {
    await this.sessions.closeAll();
  }

  // ---- internals ----

  /** The upstream session for a call: the client session's own, else a shared one (one per forwarded credential). */
  private session(ctx: CallContext | undefined): UpstreamConnection {
    return this.sessions.forCall(ctx, this.config.forwardCredentials === true);
  }

  /**
   * The tools as published: config `taskTools` names the task support a 2026 upstream cannot list.
   * A tool the upstream itself requires to run as a task is `optional` for the gateway's clients:
   * the gateway can always run it to its end (task-augmented upstream) for a client without tasks.
   */
  private withTaskTools(tools: ToolDescription[]): ToolDescription[] {
    const declared = this.config.taskTools ?? {};
    return tools.map((t) => {
      const support = declared[t.name] ?? (t.execution?.taskSupport === 'required' ? 'optional' : undefined);
      return support ? { ...t, execution: { ...t.execution, taskSupport: support } } : t;
    });
  }

  private async toolList(client: Client, signal?: AbortSignal): Promise<ToolDescription[]> {
    if (!this.tools) {
      try {
        this.tools = (await listUpstreamTools(client, signal)).map(describeTool);
      } catch (err) {
        throw upstreamError(err, this.name, signal);
      }
    }
    return this.tools;
  }

  /** `notifications/tools/list_changed`: list again on next use, and let the gateway re-describe. */
  private toolsChanged(): void {
    this.tools = undefined;
    this.deps.invalidateDescription?.();
    this.deps.log.debug({}, 'the MCP server changed its tools');
  }

  private async invoke(
    session: UpstreamConnection,
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
    onProgress: (p: Progress) => void,
  ): Promise<McpToolResult> {
    const timeout = this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const upstream = plainReasonSignal(ctx.signal);
    // A tool the upstream runs only as a task (2025-11-25 `taskSupport: "required"`) is called as one.
    const known = this.tools?.find((t) => t.name === name);
    const asTask = known?.execution?.taskSupport === 'required';
    // The definition lets the SDK mirror x-mcp-header parameters into Mcp-Param-* headers (SEP-2243).
    const toolDefinition = known ? ({ name, inputSchema: known.inputSchema, ...(known.outputSchema ? { outputSchema: known.outputSchema } : {}) } as Tool) : undefined;
    const opts = { signal: upstream.signal, timeout, ...(toolDefinition ? { toolDefinition } : {}) };
    try {
      return (await this.scopes.withProgress(onProgress, (progressToken) =>
        session.use((client) =>
          this.scopes.run({ channel: ctx.client, signal: ctx.signal, requestId: ctx.requestId }, () =>
            // A 2026-07-28 upstream has no task-augmented calls: its tools answer plainly or in rounds.
            asTask && client.getProtocolEra() !== 'modern'
              ? callAsTask(client, name, args, { progressToken }, upstream.signal, timeout)
              : ctx.client?.rounds && client.getProtocolEra() === 'modern'
                ? callInRounds(client, name, args, { progressToken }, ctx.client.rounds, opts)
                : client.callTool({ name, arguments: args, _meta: { progressToken } }, opts),
          ),
        ),
      )) as McpToolResult;
    } catch (err) {
      throw upstreamError(err, this.name, ctx.signal);
    } finally {
      upstream.dispose();
    }
  }

  /** Runs a tool call, yielding `progress` events as the upstream reports them, then maps its result. */
  private async *streamed(
    session: UpstreamConnection,
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
    map: (r: McpToolResult) => Iterable<AgentEvent>,
  ): AsyncGenerator<AgentEvent> {
    const queue: AgentEvent[] = [];
    let wake: (() => void) | undefined;
    let settled = false;
    const outcome = this.invoke(session, name, args, ctx, (p) => {
      ctx.client?.progress?.(p);
      const fraction = p.total ? Math.min(1, Math.max(0, p.progress / p.total)) : undefined;
      queue.push({ type: 'progress', ...(fraction !== undefined ? { progress: fraction } : {}), ...(p.message ? { message: p.message } : {}) });
      wake?.();
    }).finally(() => {
      settled = true;
      wake?.();
    });
    outcome.catch(() => undefined); // observed below; never an unhandled rejection meanwhile
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (settled) break;
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
    yield* map(await outcome);
  }
}
