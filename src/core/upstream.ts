import { GatewayError } from './errors.ts';

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
  try {
    return await fetch(url, { ...init, signal });
  } catch (err) {
    if (opts.signal?.aborted) throw new GatewayError('CANCELLED', 'The call was cancelled', { cause: err });
    if (timeout?.aborted) {
      throw new GatewayError('TIMEOUT', `Agent "${opts.agent}" did not answer within ${opts.timeoutMs} ms`, { cause: err });
    }
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${opts.agent}" could not be reached`, { cause: err });
  }
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
