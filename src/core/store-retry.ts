import { toGatewayError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

export interface StoreRetryOptions {
  /** Give up after this time (epoch ms): the promise's own end of life. */
  until: number;
  /** Stop early (the replica is shutting down). */
  stopped?: () => boolean;
  log: Logger;
  /** What is being written, for the log. */
  what: string;
}

/**
 * Runs a store write until it succeeds, retrying while the store is unavailable (a Redis restart,
 * a Sentinel failover) with a backoff capped at one second, for as long as the state it writes may
 * live. A store outage must delay an answer, never replace it (issue "Faults and scale-out" item 2).
 * Errors other than STORE_UNAVAILABLE are not retried. Resolves undefined when it gave up.
 */
export async function retryStoreWrite<T>(write: () => Promise<T>, opts: StoreRetryOptions): Promise<T | undefined> {
  let pause = 100;
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const e = toGatewayError(err);
      if (e.code !== 'STORE_UNAVAILABLE') throw err;
      if (Date.now() + pause > opts.until || opts.stopped?.()) {
        opts.log.error({ attempt, what: opts.what }, 'the store stayed unavailable; giving up');
        return undefined;
      }
      if (attempt === 0 || attempt % 10 === 0) opts.log.warn({ attempt, what: opts.what }, 'the store is unavailable; retrying');
      await sleep(pause);
      pause = Math.min(pause * 2, 1_000);
    }
  }
}
