import { createHash } from 'node:crypto';
import type { Client, Tool } from '@modelcontextprotocol/client';
import type { AdapterDeps, Agent, AgentDescription, CallContext, CommonAgentConfig, ToolDescription, ToolResult } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/core/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { buildAskCall, upstreamRequest } from './ask-mapping.ts';
import { CallScopes, type Progress } from './call-scope.ts';
import type { McpAdapterConfig } from './config.ts';
import { UpstreamConnection, listUpstreamTools } from './connection.ts';
import { upstreamError } from './errors.ts';
import { forwardableMethods, forwardRequest } from './forward.ts';
import { askEvents, nlwebEvents, nlwebResponseIn, toToolResult, type McpToolResult } from './result-mapping.ts';

/** A configured `mcp` agent: the common settings plus the kind's own. */
export type McpAgentConfig = McpAdapterConfig & CommonAgentConfig;

/** Sessions kept per forwarded credential (forwardCredentials agents), least recently used dropped. */
const MAX_CREDENTIAL_SESSIONS = 16;
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
  private readonly sessions = new Map<string, UpstreamConnection>();
  private tools: ToolDescription[] | undefined;

  constructor(
    private readonly config: McpAgentConfig,
    private readonly deps: AdapterDeps,
  ) {
    this.name = config.name;
  }

  /** Lists the upstream's tools (MCP `tools/list`) and what else it serves. */
  async describe(signal?: AbortSignal): Promise<AgentDescription> {
    return this.session(undefined).use(async (client) => {
      const tools = await this.toolList(client, signal);
      const forwards = this.config.forward ? forwardableMethods(client.getServerCapabilities() ?? {}) : [];
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
    return toToolResult(await this.invoke(this.session(ctx), name, args, ctx, (p) => ctx.client?.progress?.(p)));
  }

  /** MCP requests beyond tools (resources, prompts, completions, log level) passed through unchanged. */
  async forward(protocol: 'mcp', method: string, params: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
    if (protocol !== 'mcp' || !this.config.forward) throw new GatewayError('TOOL_NOT_FOUND', `Agent "${this.name}" does not serve ${method}`);
    try {
      return await this.session(ctx).use((client) =>
        this.scopes.run({ channel: ctx.client, signal: ctx.signal, requestId: ctx.requestId }, () => forwardRequest(client, method, params, ctx.signal)),
      );
    } catch (err) {
      throw upstreamError(err, this.name, ctx.signal);
    }
  }

  async close(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((s) => s.close()));
  }

  // ---- internals ----

  /** The upstream session for a call: one shared session, or one per forwarded credential. */
  private session(ctx: CallContext | undefined): UpstreamConnection {
    const auth = this.config.forwardCredentials ? ctx?.credentials?.authorization : undefined;
    const key = auth ? createHash('sha256').update(auth).digest('base64url') : '';
    let conn = this.sessions.get(key);
    if (conn) {
      this.sessions.delete(key); // re-inserted below: Map order is the LRU order
    } else {
      conn = new UpstreamConnection({
        agent: this.name,
        config: this.config,
        baseDir: this.deps.baseDir,
        log: this.deps.log,
        scopes: this.scopes,
        ...(this.deps.upstream ? { http: this.deps.upstream } : {}),
        onToolsChanged: () => this.toolsChanged(),
        ...(auth ? { authorization: auth } : {}),
      });
    }
    this.sessions.set(key, conn);
    if (this.sessions.size > MAX_CREDENTIAL_SESSIONS) {
      const [oldest, old] = this.sessions.entries().next().value as [string, UpstreamConnection];
      this.sessions.delete(oldest);
      void old.close();
    }
    return conn;
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
    try {
      return (await this.scopes.withProgress(onProgress, (progressToken) =>
        session.use((client) =>
          this.scopes.run({ channel: ctx.client, signal: ctx.signal, requestId: ctx.requestId }, () =>
            client.callTool({ name, arguments: args, _meta: { progressToken } }, { signal: ctx.signal, timeout }),
          ),
        ),
      )) as McpToolResult;
    } catch (err) {
      throw upstreamError(err, this.name, ctx.signal);
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
