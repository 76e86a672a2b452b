import type { Store } from '../store/store.ts';
import type { GatewayMetrics } from './metrics.ts';

/** Store operations that are not commands to time (lifecycle and the long-lived subscription). */
const UNTIMED = new Set(['close', 'onCancel', 'constructor']);

/**
 * The store with every operation timed and its failures counted (issue 13: "store command latency
 * and errors"), by operation name (a fixed set: the Store interface's methods). The store itself is
 * untouched: this wraps it at app level, so `src/store` knows nothing of telemetry.
 */
export function instrumentStore(store: Store, metrics: GatewayMetrics): Store {
  const wrapped = new Map<string | symbol, unknown>();
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const cached = wrapped.get(key);
      if (cached) return cached;
      const fn = value as (...args: unknown[]) => unknown;
      const command = String(key);
      const labels = { store: target.kind, command };
      const duration = metrics.storeDuration.labels(labels);
      const call = UNTIMED.has(command)
        ? fn.bind(target)
        : (...args: unknown[]) => {
            const started = performance.now();
            const done = () => duration.observe((performance.now() - started) / 1000);
            try {
              const result = fn.apply(target, args);
              if (!(result instanceof Promise)) {
                done();
                return result;
              }
              return result.then(
                (v) => {
                  done();
                  return v;
                },
                (err: unknown) => {
                  done();
                  metrics.storeErrors.inc(labels);
                  throw err;
                },
              );
            } catch (err) {
              done();
              metrics.storeErrors.inc(labels);
              throw err;
            }
          };
      wrapped.set(key, call);
      return call;
    },
  });
}
