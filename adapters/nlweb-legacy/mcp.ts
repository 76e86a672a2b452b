import { z } from 'zod';
import type { CallContext } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import { assertUpstreamOk, type UpstreamResponse } from '../../src/core/upstream/index.ts';
import { framesOfValue, isEventStream, replyFrames } from './reply.ts';
import type { LegacyParams } from './request.ts';
import { parseSites } from './sites.ts';

/**
 * The two pre-standard `/mcp` dialects (interop.md): mid-2025 servers take
 * `{"function_call":{"name":"ask","arguments":"<JSON string>"}}`; later ones take JSON-RPC
 * (protocol 2024-11-05, no sessions) and answer a tool call with every frame in one text item.
 */
export type McpShape = 'function_call' | 'jsonrpc';

/** Posts a JSON body to `/mcp` with the agent's headers, limits and (for a call) the call's credentials. */
export type McpPost = (query: URLSearchParams | undefined, body: unknown, signal: AbortSignal, ctx?: CallContext) => Promise<UpstreamResponse>;

const JsonRpcReplySchema = z.looseObject({
  jsonrpc: z.string().optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string().optional() }).optional(),
});
type JsonRpcReply = z.infer<typeof JsonRpcReplySchema>;

const ToolsListSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string(), inputSchema: z.looseObject({ properties: z.record(z.string(), z.unknown()).optional() }).optional() })),
});
const CallToolResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).default([]),
  isError: z.boolean().optional(),
});

/** What the JSON-RPC handshake learnt: the ask tool's name (`ask` or `ask_nlweb`) and its `site` type. */
interface JsonRpcTools {
  ask: string;
  siteIsArray: boolean;
  sites?: string;
}

/** The JSON-RPC protocol revision these servers speak (interop.md). */
const PROTOCOL_VERSION = '2024-11-05';

/** A legacy `/mcp` endpoint spoken in either dialect; detects the dialect when not configured. */
export class LegacyMcpClient {
  private tools: Promise<JsonRpcTools> | undefined;
  private nextId = 1;

  constructor(
    private readonly agent: string,
    private readonly post: McpPost,
    private shape: McpShape | undefined,
  ) {}

  /** The dialect: from config, else probed with `initialize` (a function-call server rejects it). */
  async resolveShape(signal: AbortSignal): Promise<McpShape> {
    if (this.shape) return this.shape;
    const res = await this.post(undefined, this.request('initialize', initializeParams()), signal);
    const body = await res.text();
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      value = undefined;
    }
    const rpc = JsonRpcReplySchema.safeParse(value);
    if (res.ok && rpc.success && (rpc.data.result !== undefined || rpc.data.error !== undefined)) this.shape = 'jsonrpc';
    // The mid-2025 handler answers a body without `function_call` with 400 and a function_response.
    else if ((value as { type?: unknown } | undefined)?.type === 'function_response' || res.status === 400) this.shape = 'function_call';
    else {
      assertUpstreamOk(res, this.agent);
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.agent}" answered /mcp in no known dialect`);
    }
    return this.shape;
  }

  /** Asks through `/mcp`; yields the legacy frames of the answer (function-call replies stream). */
  async *ask(params: LegacyParams, query: URLSearchParams, ctx: CallContext): AsyncGenerator<unknown> {
    if ((await this.resolveShape(ctx.signal)) === 'function_call') {
      yield* this.functionCall(params, query, ctx);
      return;
    }
    yield* await this.jsonRpcAsk(params, query, ctx, true);
  }

  /** The server's sites through the `list_sites` (or `get_sites`) tool; undefined when it has none. */
  async listSites(signal: AbortSignal): Promise<string[] | undefined> {
    if ((await this.resolveShape(signal)) !== 'jsonrpc') return undefined;
    const tools = await this.handshake(signal);
    if (!tools.sites) return undefined;
    const reply = await this.call('tools/call', { name: tools.sites, arguments: {} }, undefined, signal);
    const result = CallToolResultSchema.safeParse(reply.result);
    if (!result.success) return undefined;
    for (const item of result.data.content) {
      const sites = item.text === undefined ? undefined : framesOfValue(item.text).map(parseSites).find((s) => s !== undefined);
      if (sites) return sites;
    }
    return undefined;
  }

  private async *functionCall(params: LegacyParams, query: URLSearchParams, ctx: CallContext): AsyncGenerator<unknown> {
    const args: Record<string, unknown> = {
      query: params.query,
      streaming: params.streaming,
      generate_mode: params.mode,
      mode: params.mode,
      query_id: params.query_id,
    };
    if (params.site.length > 0) args.site = params.site.length === 1 ? params.site[0] : params.site;
    // The handler copies only a few arguments; the rest rides on the query string it merges in.
    if (params.prev.length > 0) args.prev_query = params.prev.join(',');
    if (params.decontextualized_query) args.decontextualized_query = params.decontextualized_query;
    const res = await this.post(query, { function_call: { name: 'ask', arguments: JSON.stringify(args) } }, ctx.signal, ctx);
    if (res.status === 400 && !isEventStream(res)) {
      // A refused call is still a function_response (`status: error`); it says why.
      const refusal = (await res.json().catch(() => undefined)) as { error?: unknown } | undefined;
      yield { message_type: 'error', status: 400, error: refusal?.error };
      return;
    }
    assertUpstreamOk(res, this.agent);
    yield* replyFrames(res, this.agent, ctx.signal);
  }

  private async jsonRpcAsk(params: LegacyParams, query: URLSearchParams, ctx: CallContext, retry: boolean): Promise<unknown[]> {
    const tools = await this.handshake(ctx.signal);
    const args: Record<string, unknown> = { query: params.query, generate_mode: params.mode };
    if (params.site.length > 0) args.site = tools.siteIsArray ? params.site : params.site[0];
    if (params.prev.length > 0) args.prev = params.prev;
    const reply = await this.call('tools/call', { name: tools.ask, arguments: args }, query, ctx.signal, ctx);
    if (reply.error) {
      // These servers forget `initialized` when they restart: shake hands again, once.
      if (retry && /not initiali[sz]ed/i.test(reply.error.message ?? '')) {
        this.tools = undefined;
        return this.jsonRpcAsk(params, query, ctx, false);
      }
      const status = reply.error.code === -32602 || reply.error.code === -32600 ? 400 : 500;
      return [{ message_type: 'error', status, error: reply.error.message }];
    }
    const result = CallToolResultSchema.safeParse(reply.result);
    if (!result.success) throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.agent}" answered tools/call with no content`);
    if (result.data.isError) return [{ message_type: 'error', error: result.data.content.map((c) => c.text ?? '').join(' ') }];
    return result.data.content.flatMap((c) => (c.type === 'text' && c.text !== undefined ? framesOfValue(c.text) : []));
  }

  /**
   * `initialize`, then `notifications/initialized` (sent with an id: these servers set their
   * "initialized" flag only there and answer it), then `tools/list`. Kept until a call fails.
   */
  private handshake(signal: AbortSignal): Promise<JsonRpcTools> {
    this.tools ??= (async () => {
      await this.call('initialize', initializeParams(), undefined, signal);
      await this.call('notifications/initialized', {}, undefined, signal).catch(() => undefined);
      const listed = ToolsListSchema.safeParse((await this.call('tools/list', {}, undefined, signal)).result);
      const tools = listed.success ? listed.data.tools : [];
      const ask = tools.find((t) => t.name === 'ask') ?? tools.find((t) => t.name === 'ask_nlweb') ?? tools.find((t) => /^ask/.test(t.name));
      const site = ask?.inputSchema?.properties?.site as { type?: unknown } | undefined;
      const sites = tools.find((t) => t.name === 'list_sites' || t.name === 'get_sites')?.name;
      return { ask: ask?.name ?? 'ask', siteIsArray: site?.type === 'array', ...(sites ? { sites } : {}) };
    })();
    this.tools.catch(() => (this.tools = undefined));
    return this.tools;
  }

  private request(method: string, params: unknown): Record<string, unknown> {
    return { jsonrpc: '2.0', id: this.nextId++, method, params };
  }

  /** One JSON-RPC exchange; the reply may come as JSON or as one SSE event. */
  private async call(method: string, params: unknown, query: URLSearchParams | undefined, signal: AbortSignal, ctx?: CallContext): Promise<JsonRpcReply> {
    const res = await this.post(query, this.request(method, params), signal, ctx);
    assertUpstreamOk(res, this.agent);
    const frames: unknown[] = [];
    for await (const frame of replyFrames(res, this.agent, signal)) frames.push(frame);
    const reply = frames.map((f) => JsonRpcReplySchema.safeParse(f)).find((r) => r.success && (r.data.result !== undefined || r.data.error));
    if (!reply?.success) throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.agent}" answered ${method} with no JSON-RPC reply`);
    return reply.data;
  }
}

function initializeParams(): Record<string, unknown> {
  return { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'nlgate', version: '0.1.0' } };
}
