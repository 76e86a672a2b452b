import type { AdapterDeps, Agent, AgentDescription, CallContext, CommonAgentConfig } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { eventsFromReply, type ReplyEventSource } from '../../src/core/reply-events.ts';
import { assertUpstreamOk, UpstreamClient, type UpstreamResponse } from '../../src/core/upstream/index.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import type { NlwebAdapterConfig } from './config.ts';
import { mapJsonReply } from './json-reply.ts';
import { readSseReply } from './reply.ts';
import { buildAskBody, buildAwaitBody, buildHeaders } from './request.ts';
import { gatewayScaled, onGatewayScale, onUpstreamScale } from './score.ts';

/** A configured `nlweb` agent: the common settings plus the kind's own. */
export type NlwebAgentConfig = NlwebAdapterConfig & CommonAgentConfig;

/** Parses `Retry-After` (seconds or an HTTP date) into whole seconds. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * An upstream NLWeb v0.55/v0.54 agent over HTTP (spec 7): `ask` posts to `/ask`, `await` to
 * `/await`, and the reply (JSON or SSE) is mapped to canonical events as it arrives.
 */
export class NlwebAgent implements Agent {
  readonly kind = 'nlweb';
  readonly name: string;
  private readonly http: UpstreamClient;
  private readonly askUrl: string;
  private readonly awaitUrl: string;

  constructor(
    private readonly config: NlwebAgentConfig,
    deps: AdapterDeps,
  ) {
    this.name = config.name;
    this.http = deps.upstream ?? new UpstreamClient({ agent: config.name, kind: 'nlweb' });
    this.askUrl = `${config.url}/ask`;
    this.awaitUrl = `${config.url}/await`;
  }

  /** Describes the agent from config (the upstream has no describe call in v0.55). */
  async describe(): Promise<AgentDescription> {
    return {
      description: this.config.description ?? `An NLWeb v${this.config.version} agent`,
      capabilities: { streaming: true },
    };
  }

  /** Spec 3 + 6: asks the upstream, over SSE when configured, and streams its answer. */
  ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent> {
    return eventsFromReply(async () => {
      const body = buildAskBody(onUpstreamScale(request, this.config.scoreScale), ctx, this.config);
      return this.reply(await this.post(this.askUrl, body, ctx, this.config.streaming), ctx);
    });
  }

  /** Spec 4.2: checks in on (or cancels) the upstream's own promise `token`. */
  await(token: string, action: 'checkin' | 'cancel', ctx: CallContext): AsyncIterable<AgentEvent> {
    return eventsFromReply(async () => this.reply(await this.post(this.awaitUrl, buildAwaitBody(token, action, this.config), ctx, false), ctx));
  }

  /**
   * The reply's events (reply.ts), scores on the gateway's scale: a JSON reply mapped whole, as an
   * array the core takes whole (eventsFromReply), an SSE one as it arrives.
   */
  private async reply(res: UpstreamResponse, ctx: CallContext): Promise<ReplyEventSource> {
    const scale = this.config.scoreScale;
    if (!res.isEventStream) return mapJsonReply(await res.json(), this.name).map((e) => gatewayScaled(e, scale));
    return onGatewayScale(readSseReply(res, { agent: this.name, signal: ctx.signal, log: ctx.log }), scale);
  }

  /** POSTs JSON to `url`; non-2xx is UPSTREAM_ERROR (429: RATE_LIMITED with Retry-After), 7.4. */
  private async post(url: string, body: unknown, ctx: CallContext, wantStream: boolean): Promise<UpstreamResponse> {
    const res = await this.http.request({
      url,
      method: 'POST',
      headers: buildHeaders(this.config, ctx, wantStream),
      body: JSON.stringify(body),
      signal: ctx.signal,
      requestId: ctx.requestId,
      ...(this.config.timeoutMs ? { timeoutMs: this.config.timeoutMs } : {}),
    });
    if (res.ok) return res;
    res.cancel();
    if (res.status === 429) {
      const retryAfter = retryAfterSeconds(res.headers.get('retry-after'));
      throw new GatewayError('RATE_LIMITED', `Agent "${this.name}" is rate limiting the gateway`, { retryAfter });
    }
    assertUpstreamOk(res, this.name);
    return res;
  }
}
