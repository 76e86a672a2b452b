import type { Store } from '../store/store.ts';
import { delegateTo } from './delegate.ts';
import type { GatewayMetrics } from './metrics.ts';

/** Store operations that are not commands to time (lifecycle and the long-lived subscription). */
const UNTIMED = new Set(['close', 'onCancel', 'constructor']);

/**
 * The store with every operation timed and its failures counted (issue 13: "store command latency
 * and errors"), by operation name (a fixed set: the Store interface's methods). The store itself is
 * untouched: this wraps it at app level, so `src/store` knows nothing of telemetry.
 */
export function instrumentStore(store: Store, metrics: GatewayMetrics): Store {
  return delegateTo(store, (command, fn) => {
    if (UNTIMED.has(command)) return undefined;
    const labels = { store: store.kind, command };
    // Resolved on first use: a command the deployment never runs shows no series.
    let duration: { observe(seconds: number): void } | undefined;
    const done = (started: number) => (duration ??= metrics.storeDuration.labels(labels)).observe((performance.now() - started) / 1000);
    return (...args: unknown[]) => {
      const started = performance.now();
      try {
        const result = fn.apply(store, args);
        if (!(result instanceof Promise)) {
          done(started);
          return result;
        }
        return result.then(
          (v) => {
            done(started);
            return v;
          },
          (err: unknown) => {
            done(started);
            metrics.storeErrors.inc(labels);
            throw err;
          },
        );
      } catch (err) {
        done(started);
        metrics.storeErrors.inc(labels);
        throw err;
      }
    };
  });
}
