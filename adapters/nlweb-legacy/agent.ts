import type { AdapterDeps, Agent, AgentDescription, CallContext, CommonAgentConfig } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { assertUpstreamOk, UpstreamClient, type UpstreamResponse } from '../../src/core/upstream/index.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import type { NlwebLegacyConfig } from './config.ts';
import { LegacyFrameReader, type Dialect } from './frames.ts';
import { LegacyMcpClient } from './mcp.ts';
import { eventsFromFrames, replyFrames } from './reply.ts';
import { buildLegacyParams, toJsonBody, toSearchParams, type LegacyParams } from './request.ts';
import { parseSites } from './sites.ts';

type Config = NlwebLegacyConfig & CommonAgentConfig;

/** A configured generation's dialect; `auto` has none until a reply shows it. */
function configuredDialect(generation: NlwebLegacyConfig['generation']): Dialect | undefined {
  if (generation === 'C') return 'C';
  return generation === 'auto' ? undefined : 'AB';
}

/**
 * An older NLWeb REST server (specs/nlweb-legacy-rest-api.md, interop.md) as a v0.55 agent: the ask
 * becomes `/ask` query parameters (or a legacy `/mcp` call), the `message_type` frames become
 * canonical events as they arrive, and `GET /sites` becomes the agent's site list.
 */
export class NlwebLegacyAgent implements Agent {
  readonly kind = 'nlweb-legacy';
  readonly name: string;
  /** The dialect the last reply showed (generation `auto`); a configured generation wins. */
  private detected: Dialect | undefined;
  private readonly mcp: LegacyMcpClient | undefined;
  private readonly http: UpstreamClient;

  constructor(
    private readonly config: Config,
    private readonly deps: AdapterDeps,
  ) {
    this.name = config.name;
    this.http = deps.upstream ?? new UpstreamClient({ agent: config.name, kind: 'nlweb-legacy' });
    if (config.transport === 'mcp') {
      const dialect = configuredDialect(config.generation);
      const shape = dialect === undefined ? undefined : dialect === 'C' ? 'jsonrpc' : 'function_call';
      this.mcp = new LegacyMcpClient(this.name, (query, body, signal, ctx) => this.post('/mcp', query, body, signal, ctx), shape);
    }
  }

  /** The dialect requests are written in: configured, else detected, else the mid-2025 one (read by all). */
  get dialect(): Dialect | undefined {
    return configuredDialect(this.config.generation) ?? this.detected;
  }

  /** Describes the agent; its sites come from config, `GET /sites` or the `/mcp` `list_sites` tool. */
  async describe(signal?: AbortSignal): Promise<AgentDescription> {
    const sites = this.config.sites ?? (await this.fetchSites(signal ?? AbortSignal.timeout(10_000)));
    const description =
      this.config.description ??
      (sites && sites.length > 0
        ? `Answers natural-language questions about the sites ${sites.join(', ')} (NLWeb search).`
        : 'Answers natural-language questions with an NLWeb search.');
    return { description, ...(sites ? { sites } : {}), capabilities: { streaming: true, summarize: true } };
  }

  /** NLWeb ask (v0.55 3, 6) against the legacy server; events are yielded as its frames arrive. */
  async *ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent> {
    const params = buildLegacyParams(request, ctx, { streaming: this.config.streaming, maxPrev: this.config.maxPrev });
    const query = toSearchParams(params, this.dialect);
    const reader = new LegacyFrameReader(this.name, (what, message) =>
      what === 'error'
        ? ctx.log.warn({ upstreamMessage: message.slice(0, 500) }, 'legacy server reported an error')
        : ctx.log.debug({ messageType: message.slice(0, 100) }, 'legacy frame type ignored'),
    );
    const frames = this.mcp ? this.mcp.ask(params, query, ctx) : this.askFrames(params, query, ctx);
    try {
      yield* eventsFromFrames(frames, reader, this.name);
    } finally {
      if (reader.dialect) this.detected = reader.dialect;
    }
  }

  private async *askFrames(params: LegacyParams, query: URLSearchParams, ctx: CallContext): AsyncGenerator<unknown> {
    const res =
      this.config.method === 'POST'
        ? await this.post('/ask', undefined, toJsonBody(params), ctx.signal, ctx, params.streaming)
        : await this.http.request({ url: `${this.config.url}/ask?${query}`, method: 'GET', headers: this.headers(ctx, params.streaming), ...this.callOptions(ctx.signal, ctx) });
    if (!res.ok) res.cancel();
    assertUpstreamOk(res, this.name);
    yield* replyFrames(res, this.name, ctx.signal);
  }

  /** `GET /sites?streaming=false` (answered as JSON or as one SSE frame), or `/mcp` `list_sites`. */
  private async fetchSites(signal: AbortSignal): Promise<string[] | undefined> {
    try {
      const viaMcp = this.mcp ? await this.mcp.listSites(signal) : undefined;
      if (viaMcp) return viaMcp;
      const res = await this.http.request({ url: `${this.config.url}/sites?streaming=false`, headers: this.headers(undefined, false), signal });
      if (!res.ok) res.cancel();
      assertUpstreamOk(res, this.name);
      for await (const frame of replyFrames(res, this.name, signal)) {
        const sites = parseSites(frame);
        if (sites) return sites;
      }
    } catch (err) {
      this.deps.log.warn({ err: String(err) }, 'legacy server sites unavailable');
    }
    return undefined;
  }

  private post(path: string, query: URLSearchParams | undefined, body: unknown, signal: AbortSignal, ctx?: CallContext, stream = true): Promise<UpstreamResponse> {
    const headers = this.headers(ctx, stream);
    headers['content-type'] = 'application/json';
    const url = `${this.config.url}${path}${query ? `?${query}` : ''}`;
    return this.http.request({ url, method: 'POST', headers, body: JSON.stringify(body), ...this.callOptions(signal, ctx) });
  }

  private callOptions(signal: AbortSignal, ctx?: CallContext): { signal: AbortSignal; requestId?: string; timeoutMs?: number } {
    return { signal, ...(ctx ? { requestId: ctx.requestId } : {}), ...(this.config.timeoutMs ? { timeoutMs: this.config.timeoutMs } : {}) };
  }

  /**
   * The configured headers (the gateway's own credentials), plus the client's `Authorization` only
   * when the core handed it over (`forwardCredentials: true`). Nothing else from the client goes upstream.
   */
  private headers(ctx: CallContext | undefined, stream: boolean): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.config.headers ?? {})) headers[k.toLowerCase()] = v;
    // Only a streamed ask offers SSE. Microsoft's NLWeb streams whenever Accept names
    // text/event-stream, and with `streaming=false` beside it sends only `complete`: the answer is lost.
    headers.accept = stream ? 'text/event-stream, application/json' : 'application/json';
    if (ctx?.credentials?.authorization) headers.authorization = ctx.credentials.authorization;
    return headers;
  }
}
