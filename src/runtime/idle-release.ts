import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '../base/logger.ts';

/**
 * V8's `gc` function. The `last-resort` flavor is `Heap::CollectAllAvailableGarbage`: full
 * collections until nothing more is freed, then the heap's free pages are returned to the system.
 * A plain `gc()` frees the same objects but keeps the pages, so RSS does not move
 * (docs/benchmarks.md "Footprint of one sidecar", fourth round).
 */
export type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => unknown;

/** What is watched for traffic: a Node HTTP server (its `request` event; the request's URL tells probes apart). */
export interface RequestSource {
  on(event: 'request', listener: (req: { url?: string }) => void): unknown;
  off(event: 'request', listener: (req: { url?: string }) => void): unknown;
}

export interface IdleReleaseOptions {
  /** How often to look; a look at which the last period was quiet may release. */
  periodMs: number;
  /** The RSS growth since the last release (or since start) that is worth a release, in bytes. */
  minGrowthBytes?: number;
  /** The least time between two releases, whatever the traffic does (default: six periods). */
  minIntervalMs?: number;
  /** The collector; null for none. Unset: `collector()`, looked up at the first release. */
  gc?: GcFunction | null;
  rss?: () => number;
  now?: () => number;
  log?: Logger;
}

export interface IdleRelease {
  /** Runs one look now, as the timer would (for tests); returns whether it released. */
  check(): boolean;
  stop(): void;
}

const MiB = 1024 * 1024;

/**
 * V8's `gc` function: the global one when Node runs with `--expose-gc`; else one from a new context
 * made after turning that flag on, which installs `gc` in contexts made from then on (what Jest's
 * leak detector does). Turning the flag on at start instead (`--expose-gc`) cost 25-45 ms of every
 * start to the first `/healthz` (215 → 240-264 ms median, seven runs each). Undefined if neither works.
 */
export function collector(): GcFunction | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as GcFunction;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as GcFunction) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Returns a replica's spare memory to the system once traffic stops (issues 23 and 25). Under load
 * V8 grows its heap and keeps the pages when the load ends: after the bench's scenarios a replica
 * held 240 MiB of RSS for 45 MiB of live objects, and V8's memory reducer, which would shrink it,
 * waits for idle-time notifications Node never sends. So, at every period in which the replica
 * answered no more than one request a second (health probes and scrapes do not count as traffic),
 * if its RSS grew by `minGrowthBytes` since the last release and `minIntervalMs` have passed, it
 * runs one memory-reducing collection. The cost is bounded: at most one collection per
 * `minIntervalMs` (six periods: 30 s by default; tens of milliseconds of CPU each) and none while
 * the replica is busy.
 */
export function releaseMemoryWhenIdle(server: RequestSource, options: IdleReleaseOptions): IdleRelease {
  const { periodMs, rss = () => process.memoryUsage.rss(), now = Date.now, log } = options;
  // Looked up at the first release: a replica that never goes quiet after load never makes the context.
  let gc: GcFunction | null | undefined = options.gc;
  const minGrowth = options.minGrowthBytes ?? 8 * MiB;
  const minInterval = options.minIntervalMs ?? 6 * periodMs;
  // One counter on the request event: the only cost on the request path.
  let requests = 0;
  const count = () => void requests++;
  server.on('request', count);
  let baseline = 0; // RSS right after the last release; 0 until the first, so start-up's garbage goes too
  let lastRelease = -Infinity;
  const check = (): boolean => {
    const seen = requests;
    requests = 0;
    if (gc === null || seen > periodMs / 1000) return false;
    const before = rss();
    const at = now();
    if (before - baseline < minGrowth || at - lastRelease < minInterval) return false;
    if (gc === undefined) gc = collector() ?? null;
    if (gc === null) {
      log?.warn('idle memory release is off: V8 gave no gc function');
      return false;
    }
    const started = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    baseline = rss();
    lastRelease = at;
    log?.debug({ rssBeforeMiB: Math.round(before / MiB), rssAfterMiB: Math.round(baseline / MiB), ms: Math.round(performance.now() - started) }, 'idle: memory returned to the system');
    return true;
  };
  const timer = periodMs > 0 ? setInterval(check, periodMs) : undefined;
  timer?.unref();
  return {
    check,
    stop: () => {
      if (timer) clearInterval(timer);
      server.off('request', count);
    },
  };
}
