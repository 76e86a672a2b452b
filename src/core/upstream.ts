import { GatewayError } from './errors.ts';
import { upstreamChannels, type UpstreamExchange } from './upstream-events.ts';

let exchangeIds = 0;

export interface UpstreamFetchOptions {
  /** Aborts the call (client cancel, promise cancel). */
  signal?: AbortSignal;
  /** Fails with TIMEOUT when no response headers arrived after this long. */
  timeoutMs?: number;
  /** Agent name, for error messages only. */
  agent: string;
}

/**
 * fetch() for adapters: the URL comes from config (never from a client), network failures become
 * UPSTREAM_ERROR, a slow upstream TIMEOUT, a caller abort CANCELLED. Messages never include the URL's
 * credentials or the upstream body.
 */
export async function fetchUpstream(url: string | URL, init: RequestInit, opts: UpstreamFetchOptions): Promise<Response> {
  const timeout = opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined;
  const signals = [opts.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
  // upstream-events.ts: observers (metrics, traces) see the exchange; they may add headers (traceparent).
  const exchange = upstreamChannels.request.hasSubscribers || upstreamChannels.end.hasSubscribers ? publishRequest(url, init, opts.agent) : undefined;
  try {
    const res = await fetch(url, { ...init, ...(exchange ? { headers: exchange.headers } : {}), signal });
    if (exchange) {
      upstreamChannels.response.publish({ exchange, status: res.status, headers: {} });
      upstreamChannels.end.publish({ exchange, bytes: 0, durationMs: performance.now() - exchange.startedAt });
    }
    return res;
  } catch (err) {
    const failure = opts.signal?.aborted
      ? new GatewayError('CANCELLED', 'The call was cancelled', { cause: err })
      : timeout?.aborted
        ? new GatewayError('TIMEOUT', `Agent "${opts.agent}" did not answer within ${opts.timeoutMs} ms`, { cause: err })
        : new GatewayError('UPSTREAM_ERROR', `Agent "${opts.agent}" could not be reached`, { cause: err });
    if (exchange) upstreamChannels.end.publish({ exchange, error: failure.code, bytes: 0, durationMs: performance.now() - exchange.startedAt });
    throw failure;
  }
}

/** Publishes the `request` event of an exchange (until the upstream work times whole bodies, `end` follows the headers). */
function publishRequest(url: string | URL, init: RequestInit, agent: string): UpstreamExchange {
  const target = new URL(url);
  target.username = '';
  target.password = '';
  const exchange: UpstreamExchange = {
    id: ++exchangeIds,
    agent,
    method: (init.method ?? 'GET').toUpperCase(),
    url: target.toString(),
    headers: {},
    startedAt: performance.now(),
  };
  new Headers(init.headers).forEach((value, name) => (exchange.headers[name] = value));
  upstreamChannels.request.publish(exchange);
  return exchange;
}

/** Reads a JSON body, turning garbage into UPSTREAM_ERROR rather than a SyntaxError. */
export async function readUpstreamJson(res: Response, agent: string): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered with a body that is not JSON`, { cause: err });
  }
}

/** Throws UPSTREAM_ERROR for a non-2xx status, naming the status but not the body. */
export function assertUpstreamOk(res: Response, agent: string): void {
  if (res.status === 429) throw new GatewayError('RATE_LIMITED', `Agent "${agent}" is rate limiting the gateway`);
  if (!res.ok) throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered HTTP ${res.status}`);
}
