import { GatewayError } from '../../base/errors.ts';

/**
 * True for an undici error of that code: the test undici's own `instanceof` makes (a global symbol
 * each error class sets), without importing undici, which loads with the first upstream request.
 */
const isUndiciError = (err: unknown, code: string): boolean =>
  typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[Symbol.for(`undici.error.${code}`)] === true;

/** The error a caller abort becomes: the core's own reason when it gave a GatewayError, else CANCELLED. */
export function cancelledError(signal: AbortSignal): GatewayError {
  return signal.reason instanceof GatewayError ? signal.reason : new GatewayError('CANCELLED', 'The call was cancelled');
}

/** Over a size cap: UPSTREAM_ERROR naming the agent and the limit (never the upstream's content). */
export function tooLargeError(agent: string, what: 'reply' | 'event', limit: number): GatewayError {
  const setting = what === 'reply' ? 'maxUpstreamBodyBytes' : 'maxUpstreamEventBytes';
  const message = what === 'reply' ? `Agent "${agent}" sent a reply larger than ${limit} bytes` : `Agent "${agent}" sent a stream event larger than ${limit} bytes`;
  return new GatewayError('UPSTREAM_ERROR', message, { details: { limit: setting } });
}

/** True for the error tooLargeError makes. */
export function isTooLarge(err: unknown): boolean {
  return err instanceof GatewayError && typeof err.details?.limit === 'string';
}

/** A failure before the response headers: CANCELLED, TIMEOUT or UPSTREAM_ERROR (never the URL). */
export function requestError(err: unknown, agent: string, signal: AbortSignal | undefined, timeoutMs: number | undefined): GatewayError {
  if (err instanceof GatewayError) return err;
  if (signal?.aborted) return cancelledError(signal);
  if (isUndiciError(err, 'UND_ERR_HEADERS_TIMEOUT') || isUndiciError(err, 'UND_ERR_CONNECT_TIMEOUT')) {
    const within = timeoutMs ? ` within ${timeoutMs} ms` : ' in time';
    return new GatewayError('TIMEOUT', `Agent "${agent}" did not answer${within}`, { cause: err });
  }
  return new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" could not be reached`, { cause: err });
}

/** A failure while reading the body: CANCELLED, TIMEOUT, a cap, or UPSTREAM_ERROR "broke off". */
export function bodyError(err: unknown, agent: string, signal: AbortSignal | undefined): GatewayError {
  if (err instanceof GatewayError) return err;
  if (signal?.aborted) return cancelledError(signal);
  if (isUndiciError(err, 'UND_ERR_BODY_TIMEOUT')) {
    return new GatewayError('TIMEOUT', `Agent "${agent}" did not finish its answer in time`, { cause: err });
  }
  return new GatewayError('UPSTREAM_ERROR', `The connection to agent "${agent}" broke before its answer was complete`, { cause: err });
}

/** Throws UPSTREAM_ERROR for a non-2xx status (429: RATE_LIMITED), naming the status but not the body. */
export function assertUpstreamOk(res: { status: number; ok: boolean }, agent: string): void {
  if (res.status === 429) throw new GatewayError('RATE_LIMITED', `Agent "${agent}" is rate limiting the gateway`);
  if (!res.ok) throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered HTTP ${res.status}`);
}
