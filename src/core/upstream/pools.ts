import type { Pool } from 'undici';
import { loadOnce } from '../../base/load-once.ts';

/** Connection settings of every upstream pool (docs/upstream-policy.md "Pools and timeouts"). */
export interface PoolSettings {
  /** Most sockets open to one origin; further requests queue. */
  connections: number;
  /** An idle keep-alive socket is closed after this long (the upstream's own hint wins when shorter). */
  keepAliveTimeoutMs: number;
  /** A TCP/TLS connect must finish within this long. */
  connectTimeoutMs: number;
}

export const DEFAULT_POOL_SETTINGS: PoolSettings = Object.freeze({ connections: 4_096, keepAliveTimeoutMs: 4_000, connectTimeoutMs: 10_000 });

// undici is the largest package the gateway bundles (≈ 550 KiB, ≈ 100 ms of CPU to load): it loads
// with the first upstream request, so a gateway whose agents are all in-process (the catalog) never
// loads it, and one with remote agents starts and answers /healthz without waiting for it (issue 23).
const loadUndici = loadOnce(() => import('./undici-pool.ts'));

/**
 * One undici `Pool` per upstream origin (RFC 9110 4.3.1: scheme, host, port), created on first use:
 * keep-alive sockets reused across calls, pipelining off (one request at a time per socket, RFC 9112
 * 9.3.2 allows more but a slow answer would block the ones behind it). Timeouts per request are set
 * by the client; the pool's body timeout is off because a stream's length is the call's business.
 */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();
  private closed = false;

  constructor(private readonly settings: PoolSettings = DEFAULT_POOL_SETTINGS) {}

  /** The pool for `origin` when it exists already: no promise hop on the per-request path. */
  existing(origin: string): Pool | undefined {
    return this.closed ? undefined : this.pools.get(origin);
  }

  /** The pool for `origin` (`http://host:port`); the first call loads undici. */
  async get(origin: string): Promise<Pool> {
    const existing = this.existing(origin);
    if (existing !== undefined) return existing;
    const { Pool } = await loadUndici();
    // Another call may have made the pool while undici loaded: one pool per origin.
    let pool = this.pools.get(origin);
    if (pool === undefined || this.closed) {
      this.closed = false;
      pool = new Pool(origin, {
        connections: this.settings.connections,
        pipelining: 1,
        keepAliveTimeout: this.settings.keepAliveTimeoutMs,
        connectTimeout: this.settings.connectTimeoutMs,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** Closes every pool (idle sockets at once, busy ones when their request ends). */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}
