/**
 * Connection health for the Redis store: what an outage looks like to callers (one
 * STORE_UNAVAILABLE error, ERROR_TABLE 503 + retry after 1 s) and the gate that lets a command
 * through only on a ready connection, so nothing waits in a queue for a Redis that is gone.
 */
import { ReplyError, type Cluster, type Redis } from 'ioredis';
import { GatewayError } from '../base/errors.ts';

type Client = Redis | Cluster;

/** The one error every outage becomes (ERROR_TABLE: 503, retry after 1 s). */
export function storeUnavailable(cause?: unknown): GatewayError {
  return new GatewayError('STORE_UNAVAILABLE', 'The state store is unavailable', { retryAfter: 1, cause });
}

// Server replies that mean "not now" (failover, loading, cluster reshuffle), not "bad command".
// OOM: a full Redis under `maxmemory-policy noeviction` (docs/state.md) refuses writes until state expires: retry later.
const TRANSIENT_REPLY = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|BUSY|OOM)\b/;

/** Maps an ioredis failure: connection trouble → STORE_UNAVAILABLE, a real server error → INTERNAL_ERROR. */
export function toStoreError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof ReplyError && !TRANSIENT_REPLY.test((err as Error).message)) {
    return new GatewayError('INTERNAL_ERROR', 'The state store rejected a command', { cause: err });
  }
  return storeUnavailable(err);
}

/**
 * Lets a command through only on a ready connection. While a connection is being made, callers
 * share one bounded wait for 'ready'; while ioredis is between reconnect attempts (or closed),
 * they fail at once.
 */
export class ReadyGate {
  private pending: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly timeoutMs: number,
  ) {}

  wait(): Promise<void> {
    const status = this.client.status;
    if (status === 'ready') return Promise.resolve();
    if (status === 'wait') this.client.connect().catch(() => undefined);
    else if (status !== 'connecting' && status !== 'connect') return Promise.reject(storeUnavailable());
    this.pending ??= new Promise<void>((resolve, reject) => {
      const finish = (err?: GatewayError): void => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('close', onDown);
        this.client.off('end', onDown);
        this.pending = undefined;
        if (err) reject(err);
        else resolve();
      };
      const onReady = (): void => finish();
      const onDown = (): void => finish(storeUnavailable());
      const timer = setTimeout(onDown, this.timeoutMs);
      this.client.once('ready', onReady);
      this.client.once('close', onDown);
      this.client.once('end', onDown);
    });
    return this.pending;
  }
}
