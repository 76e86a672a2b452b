import type { AdapterDeps, Agent, AgentDescription, CallContext, CommonAgentConfig } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { eventsFromReply } from '../../src/core/reply-events.ts';
import { assertUpstreamOk, UpstreamClient } from '../../src/core/upstream/index.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { messageParts, parseNlipMessage, toWire, type NlipMessage } from '../../src/protocol/nlip/index.ts';
import type { NlipAdapterConfig } from './config.ts';
import { asksForAuthentication, replyEvents } from './reply.ts';
import { buildAskMessage, buildCancelMessage, buildCheckinMessage, withAuthentication } from './request.ts';
import { UpstreamSession, type SessionSnapshot } from './session.ts';

/** A configured `nlip` agent: the common settings plus the kind's own. */
export type NlipAgentConfig = NlipAdapterConfig & CommonAgentConfig;

/** What the adapter hands the core as an upstream promise token: the token plus the session to use. */
interface PackedPromise {
  nlip: 1;
  token: string;
  session: SessionSnapshot;
}

function unpackPromise(token: string): PackedPromise | null {
  try {
    const v = JSON.parse(token) as PackedPromise;
    return v && v.nlip === 1 && typeof v.token === 'string' && typeof v.session === 'object' ? v : null;
  } catch {
    return null;
  }
}

/**
 * An upstream NLIP agent over HTTP (ECMA-430, interop.md "As a client of an NLIP upstream"):
 * posts to `{url}/nlip/`, follows redirects within the configured origin only (the shared upstream
 * policy, docs/upstream-policy.md), keeps a cookie jar
 * and the upstream's conversation tokens per gateway conversation, answers a request for
 * authentication (6.5) with the gateway's credential, and never dials a URL taken from a message.
 */
export class NlipAgent implements Agent {
  readonly kind = 'nlip';
  readonly name: string;
  private readonly endpoint: string;
  private readonly http: UpstreamClient;

  constructor(
    private readonly config: NlipAgentConfig,
    deps: AdapterDeps,
  ) {
    this.name = config.name;
    this.http = deps.upstream ?? new UpstreamClient({ agent: config.name, kind: 'nlip' });
    this.endpoint = `${config.url}/nlip/`;
  }

  /** From config: NLIP has no describe call. Binaries go through as NLIP binary parts. */
  async describe(): Promise<AgentDescription> {
    const capabilities = { streaming: false, summarize: true, attachments: true };
    return { description: this.config.description ?? 'An NLIP agent', capabilities };
  }

  /** Design mapping table: the ask as one NLIP message, the reply as events. */
  ask(request: AskRequest, ctx: CallContext): AsyncIterable<AgentEvent> {
    return eventsFromReply(async () => {
      const session = UpstreamSession.load(ctx, this.name);
      const labelOpt = this.config.label !== undefined ? { label: this.config.label } : {};
      const msg = buildAskMessage(request, session.tokenParts(), { ...labelOpt, withContext: !session.hasTokens });
      const reply = await this.exchange(msg, ctx, session);
      return replyEvents(reply, this.name, (token) => this.pack(token, session));
    });
  }

  /** NLWeb 4.2 over NLIP: the promise token sent back checks in; cancel is a control message. */
  await(token: string, action: 'checkin' | 'cancel', ctx: CallContext): AsyncIterable<AgentEvent> {
    return eventsFromReply(async () => {
      const packed = unpackPromise(token);
      const upstreamToken = packed?.token ?? token;
      const session = UpstreamSession.load(ctx, this.name, packed?.session);
      const tokens = session.tokenParts();
      if (action === 'cancel') {
        await this.exchange(buildCancelMessage(upstreamToken, tokens), ctx, session).catch(() => undefined);
        return [{ type: 'error', code: 'CANCELLED', message: 'The call was cancelled' }];
      }
      const reply = await this.exchange(buildCheckinMessage(upstreamToken, tokens), ctx, session);
      return replyEvents(reply, this.name, (t) => this.pack(t, session));
    });
  }

  private pack(token: string, session: UpstreamSession): string {
    const packed: PackedPromise = { nlip: 1, token, session: session.snapshot() };
    return JSON.stringify(packed);
  }

  /** One exchange: post, answer a 6.5 authentication request once, keep tokens and cookies. */
  private async exchange(msg: NlipMessage, ctx: CallContext, session: UpstreamSession): Promise<NlipMessage> {
    let reply = await this.post(msg, ctx, session);
    if (asksForAuthentication(reply)) {
      const credential = this.credential(ctx);
      if (!credential) throw new GatewayError('UNAUTHORIZED', `Agent "${this.name}" asks for authentication and the gateway has no credential for it`);
      reply = await this.post(withAuthentication(msg, credential), ctx, session);
      if (asksForAuthentication(reply)) throw new GatewayError('UNAUTHORIZED', `Agent "${this.name}" did not accept the gateway's credential`);
    }
    session.takeTokens(messageParts(reply));
    await session.save(ctx);
    return reply;
  }

  /** The credential for 6.5: the client's (only when forwarded by the core), else the configured one. */
  private credential(ctx: CallContext): string | undefined {
    if (ctx.credentials?.authorization) return ctx.credentials.authorization;
    const entry = Object.entries(this.config.headers ?? {}).find(([k]) => k.toLowerCase() === 'authorization');
    return entry?.[1];
  }

  private headers(ctx: CallContext, session: UpstreamSession): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.config.headers ?? {})) headers[k.toLowerCase()] = v;
    headers['content-type'] = 'application/json';
    headers.accept = 'application/json';
    // forwardCredentials is an explicit opt-in to act as the client: its credential wins.
    if (ctx.credentials?.authorization) headers.authorization = ctx.credentials.authorization;
    const cookie = session.cookieHeader();
    if (cookie) headers.cookie = cookie;
    return headers;
  }

  /** POSTs the message to `{url}/nlip/` through the shared client (same-origin redirects only). */
  private async post(msg: NlipMessage, ctx: CallContext, session: UpstreamSession): Promise<NlipMessage> {
    const res = await this.http.request({
      url: this.endpoint,
      method: 'POST',
      headers: this.headers(ctx, session),
      body: JSON.stringify(toWire(msg)),
      signal: ctx.signal,
      requestId: ctx.requestId,
      ...(this.config.timeoutMs ? { timeoutMs: this.config.timeoutMs } : {}),
      // Cookies set on a redirect hop count, and go with the next hop (RFC 6265 5.3).
      onResponse: (headers, next) => {
        session.takeCookies(headers);
        const cookie = session.cookieHeader();
        if (cookie) next.cookie = cookie;
      },
    });
    if (!res.ok) {
      res.cancel();
      assertUpstreamOk(res, this.name);
    }
    const parsed = parseNlipMessage(await res.json());
    if (!parsed.ok) throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.name}" answered with something that is not an NLIP message`);
    return parsed.message;
  }
}
