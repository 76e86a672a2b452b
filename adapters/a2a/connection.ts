import { AGENT_CARD_PATH, type AgentCard } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { GatewayError } from '../../src/base/errors.ts';
import type { A2aAdapterConfig } from './config.ts';

const DEFAULT_CARD_TTL_MS = 300_000;
/** A card that has not arrived after this long is an error (describe() may run with no caller signal). */
const CARD_TIMEOUT_MS = 10_000;

/** The part of the shared upstream client (`AdapterDeps.upstream`) the SDK's transports need: a Fetch-compatible function. */
export interface SharedUpstream {
  fetchFunction(opts: { headers?: Record<string, string>; requestId?: () => string | undefined }): (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

/** What one upstream call needs to reach the upstream: abort signal, request id, forwarded credentials. */
export interface CallScope {
  signal?: AbortSignal;
  requestId?: string;
  /** The client's Authorization, only when the core forwards it (`forwardCredentials`). */
  authorization?: string;
}

/**
 * The way to one upstream A2A agent: its card (cached, read through the shared upstream HTTP policy)
 * and an SDK client per call whose `fetch` is the shared upstream client's, with the configured headers. The card
 * comes from the upstream, so its interface URLs are used only on the configured origin: a card
 * cannot send the gateway (and its configured headers) anywhere else.
 */
export class A2aConnection {
  private card: { value: AgentCard; until: number } | undefined;
  private readonly origin: string;
  private readonly base: string;
  private readonly cardPath: string;

  constructor(
    private readonly name: string,
    private readonly config: A2aAdapterConfig & { timeoutMs?: number },
    /** The gateway's shared upstream client (its Fetch-compatible function carries the policy). */
    private readonly shared: SharedUpstream,
  ) {
    const url = new URL(config.url);
    this.origin = url.origin;
    if (url.pathname.endsWith('.json')) {
      this.base = url.href;
      this.cardPath = url.pathname;
    } else {
      this.base = url.href.endsWith('/') ? url.href : `${url.href}/`;
      this.cardPath = AGENT_CARD_PATH;
    }
  }

  /** A `fetch` for the SDK: the shared upstream policy, the configured headers, the call's signal. */
  fetchFor(scope: CallScope): typeof fetch {
    const configured = { ...this.config.headers, ...(scope.authorization ? { authorization: scope.authorization } : {}) };
    const signalOf = (init?: RequestInit) => {
      const signals = [scope.signal, init?.signal ?? undefined].filter((s): s is AbortSignal => Boolean(s));
      return signals.length > 0 ? AbortSignal.any(signals) : undefined;
    };
    const send = this.shared.fetchFunction({ headers: configured, requestId: () => scope.requestId });
    return (input, init) => send(input, { ...init, signal: signalOf(init) ?? null });
  }

  /** The upstream's agent card (A2A 1.0 §8.2), cached for `cardTtlMs`, with only same-origin interfaces. */
  async agentCard(scope: CallScope = {}): Promise<AgentCard> {
    if (this.card && this.card.until > Date.now()) return this.card.value;
    let card: AgentCard;
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(CARD_TIMEOUT_MS), ...(scope.signal ? [scope.signal] : [])]);
      card = await new DefaultAgentCardResolver({ fetchImpl: this.fetchFor({ ...scope, signal }) }).resolve(this.base, this.cardPath);
    } catch (err) {
      if (err instanceof GatewayError && (err.code !== 'CANCELLED' || scope.signal?.aborted)) throw err;
      if (err instanceof GatewayError) throw new GatewayError('TIMEOUT', `Agent "${this.name}" did not send its agent card within ${CARD_TIMEOUT_MS} ms`, { cause: err });
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.name}" has no readable agent card`, { cause: err });
    }
    const sameOrigin = card.supportedInterfaces.filter((i) => {
      try {
        return new URL(i.url).origin === this.origin;
      } catch {
        return false;
      }
    });
    if (sameOrigin.length === 0) {
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.name}"'s card lists no interface on the configured origin, which is the only one the gateway uses`);
    }
    const value = { ...card, supportedInterfaces: sameOrigin };
    this.card = { value, until: Date.now() + (this.config.cardTtlMs ?? DEFAULT_CARD_TTL_MS) };
    return value;
  }

  /** An SDK client for one call (its fetch carries the call's signal, request id and credentials). */
  async client(scope: CallScope): Promise<{ client: Client; card: AgentCard }> {
    const card = await this.agentCard(scope);
    const fetchImpl = this.fetchFor(scope);
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
        preferredTransports: [this.config.transport ?? 'JSONRPC'],
      }),
    );
    return { client: await factory.createFromAgentCard(card), card };
  }
}
