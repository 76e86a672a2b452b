import { randomBytes } from 'node:crypto';
import type { Agent, AgentDescription, CallContext, CommonAgentConfig, ToolDescription, ToolResult } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import type { Logger } from '../../src/base/logger.ts';
import { UpstreamClient } from '../../src/core/upstream/index.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { findAction, type WebtoolAction } from '../../src/protocol/webtool/index.ts';
import { callAction } from './call.ts';
import type { WebtoolConfig } from './config.ts';
import { dataToItems } from './items.ts';
import { MetadataPin, type Snapshot } from './pin.ts';
import { renderTemplate } from './template.ts';

/** Conversation attribute holding the sessionId the gateway uses with the upstream webtool. */
const SESSION_ATTR = 'webtool.sessionId';
const DEFAULT_RECHECK_MS = 300_000;

/** An action as a structured tool. `outputSchema` only for object results (MCP requires an object). */
function toolOf(action: WebtoolAction): ToolDescription {
  const objectResult = action.responseSchema.type === 'object';
  return {
    name: action.name,
    description: action.description,
    inputSchema: action.requestSchema,
    ...(objectResult ? { outputSchema: action.responseSchema } : { resultSchema: action.responseSchema }),
  };
}

/**
 * An upstream webtool (webtools draft 2025-06-30) as an agent: each action is a structured tool, and
 * `ask` maps to one action through the configured template.
 */
export class WebtoolAgent implements Agent {
  readonly kind = 'webtool';
  readonly name: string;
  private readonly pin: MetadataPin;
  private readonly headers: Record<string, string>;
  private readonly http: UpstreamClient;

  constructor(
    private readonly config: WebtoolConfig & CommonAgentConfig,
    log: Logger,
    upstream?: UpstreamClient,
  ) {
    this.name = config.name;
    this.http = upstream ?? new UpstreamClient({ agent: config.name, kind: 'webtool' });
    this.headers = {};
    for (const [k, v] of Object.entries(config.headers ?? {})) this.headers[k.toLowerCase()] = v;
    this.pin = new MetadataPin({
      http: this.http,
      agent: config.name,
      url: config.url,
      ...(config.version ? { version: config.version } : {}),
      ...(config.sha256 ? { sha256: config.sha256 } : {}),
      headers: this.headers,
      recheckMs: config.recheckMs ?? DEFAULT_RECHECK_MS,
      ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
      log,
    });
  }

  /** Lists the pinned version's actions as tools ("GET {webtoolUrl}/"). */
  async describe(): Promise<AgentDescription> {
    const { metadata } = await this.pin.current();
    return {
      description: this.config.description ?? metadata.description,
      tools: metadata.actions.map(toolOf),
      capabilities: { streaming: false },
    };
  }

  /** Runs one action ("POST {webtoolUrl}/"); unknown names are TOOL_NOT_FOUND. */
  async callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
    const snapshot = await this.pin.current();
    return this.run(snapshot, this.actionOf(snapshot, name), args, ctx);
  }

  /** NLWeb ask through the `ask` template; the action's `data` becomes result items. */
  async *ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent> {
    const mapping = this.config.ask;
    const snapshot = await this.pin.current();
    if (!mapping) {
      const names = snapshot.metadata.actions.map((a) => a.name).join(', ');
      throw new GatewayError('INVALID_QUERY', `Agent "${this.name}" answers only structured calls (actions: ${names})`);
    }
    const action = findAction(snapshot.metadata, mapping.action);
    if (!action) throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.name}" version ${snapshot.metadata.version} has no action "${mapping.action}"`);
    yield { type: 'start' };
    const result = await this.run(snapshot, action, renderTemplate(mapping.request, request), ctx);
    if (result.isError) {
      const failure = result.structured as { code: string; message: string };
      yield { type: 'error', code: failure.code, message: failure.message };
      return;
    }
    for (const item of dataToItems(result.structured, action.name)) yield { type: 'result', item };
    yield { type: 'complete' };
  }

  private actionOf(snapshot: Snapshot, name: string): WebtoolAction {
    const action = findAction(snapshot.metadata, name);
    if (!action) throw new GatewayError('TOOL_NOT_FOUND', `Agent "${this.name}" has no action "${name}"`);
    return action;
  }

  private async run(snapshot: Snapshot, action: WebtoolAction, request: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
    const headers = ctx.credentials?.authorization ? { ...this.headers, authorization: ctx.credentials.authorization } : this.headers;
    const sessionId = await this.sessionIdFor(ctx);
    try {
      return await callAction({
        http: this.http,
        requestId: ctx.requestId,
        agent: this.name,
        url: this.config.url,
        snapshot,
        action,
        request,
        config: this.config.config ?? {},
        headers,
        ...(sessionId ? { sessionId } : {}),
        signal: ctx.signal,
        ...(this.config.timeoutMs ? { timeoutMs: this.config.timeoutMs } : {}),
        log: ctx.log,
      });
    } catch (err) {
      // The upstream no longer has the pinned version: look again before the next call.
      if (err instanceof GatewayError && err.code === 'UPSTREAM_ERROR') this.pin.invalidate();
      throw err;
    }
  }

  /**
   * The upstream's `sessionId` for this conversation: minted once and kept as a conversation
   * attribute. The gateway's own conversation id is never sent upstream (it is a client credential).
   */
  private async sessionIdFor(ctx: CallContext): Promise<string | undefined> {
    if (!ctx.conversation) return undefined;
    const known = ctx.conversation.attrs[SESSION_ATTR];
    if (known) return known;
    if (!ctx.setConversationAttr) return undefined;
    const minted = randomBytes(16).toString('base64url');
    await ctx.setConversationAttr(SESSION_ATTR, minted);
    return minted;
  }
}
