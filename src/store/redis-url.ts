/**
 * `store.url` for the Redis store: which Redis deployment to dial and how (docs/state.md
 * "URL forms"). Plain URLs go to ioredis as they are; Sentinel and Cluster URLs, which ioredis
 * does not parse, are turned into its `sentinels`/`name` options and its Cluster startup nodes.
 *
 *   redis://[user:pass@]host[:6379][/db]            rediss://… (TLS)
 *   redis-sentinel://[user:pass@]h1[:26379],h2[:26379]/masterName[?db=N&sentinelPassword=…&sentinelUsername=…]
 *   redis-cluster://[user:pass@]h1[:6379],h2[:6379]  (rediss-sentinel://, rediss-cluster:// for TLS)
 *
 * Connection options are chosen for fail-fast outages: no offline queue, no retried or resent
 * commands, a command timeout, and reconnection forever with capped backoff.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { GatewayError } from '../base/errors.ts';

export interface HostPort {
  host: string;
  port: number;
}

/** A parsed `store.url`. */
export type RedisTarget =
  | { mode: 'standalone'; url: string }
  | {
      mode: 'sentinel';
      sentinels: HostPort[];
      name: string;
      tls: boolean;
      username?: string;
      password?: string;
      db?: number;
      sentinelUsername?: string;
      sentinelPassword?: string;
    }
  | { mode: 'cluster'; nodes: HostPort[]; tls: boolean; username?: string; password?: string };

/** Connection tuning (docs/state.md "Redis settings"). */
export interface RedisTuning {
  /** A command without a reply after this long fails (a hung Redis). Default 2000 ms. */
  commandTimeoutMs: number;
  /** Cap of the reconnect backoff. Default 2000 ms. */
  reconnectMaxDelayMs: number;
  /** A connection attempt that takes longer is abandoned. Default 2000 ms. */
  connectTimeoutMs: number;
}

export const DEFAULT_TUNING: RedisTuning = { commandTimeoutMs: 2000, reconnectMaxDelayMs: 2000, connectTimeoutMs: 2000 };

const MULTI_HOST = /^(rediss?)-(sentinel|cluster):\/\/(?:([^@/?#]*)@)?([^/?#]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/i;

function invalid(why: string): GatewayError {
  // Never echo the URL: it may carry a password.
  return new GatewayError('CONFIG_ERROR', `store.url is not a valid Redis URL: ${why}`);
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalid('bad percent-encoding');
  }
}

/** Parses one `host[:port]` or `[ipv6][:port]` of a multi-host URL. */
function parseHostPort(raw: string, defaultPort: number): HostPort {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(raw.trim());
  // The host is not echoed: a malformed URL can put the password where a host should be.
  if (!m) throw invalid('bad host[:port] in the host list');
  const port = m[3] === undefined ? defaultPort : Number(m[3]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid('port out of range');
  return { host: (m[1] ?? m[2]) as string, port };
}

/** Parses `store.url` into a standalone, Sentinel or Cluster target (docs/state.md "URL forms"). */
export function parseRedisUrl(url: string): RedisTarget {
  if (/^rediss?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw invalid('unparseable');
    }
    return { mode: 'standalone', url };
  }
  const m = MULTI_HOST.exec(url);
  if (!m) throw invalid('use redis://, rediss://, redis-sentinel:// or redis-cluster://');
  const [, scheme, mode, userinfo, hosts, path, query] = m;
  const tls = scheme!.toLowerCase() === 'rediss';
  const sentinel = mode!.toLowerCase() === 'sentinel';
  const list = hosts!.split(',').filter((h) => h.trim() !== '').map((h) => parseHostPort(h, sentinel ? 26379 : 6379));
  if (list.length === 0) throw invalid('no hosts');
  const auth: { username?: string; password?: string } = {};
  if (userinfo !== undefined && userinfo !== '') {
    const colon = userinfo.indexOf(':');
    const user = decode(colon < 0 ? userinfo : userinfo.slice(0, colon));
    if (user !== '') auth.username = user;
    if (colon >= 0) auth.password = decode(userinfo.slice(colon + 1));
  }
  const params = new URLSearchParams(query ?? '');
  if (!sentinel) {
    if (path) throw invalid('a cluster URL has no path (a cluster has only db 0)');
    return { mode: 'cluster', nodes: list, tls, ...auth };
  }
  const name = decode(path ?? '');
  if (name === '') throw invalid('a sentinel URL names the master: redis-sentinel://host:port/masterName');
  const target: RedisTarget = { mode: 'sentinel', sentinels: list, name, tls, ...auth };
  const db = params.get('db');
  if (db !== null) {
    if (!/^\d{1,5}$/.test(db)) throw invalid('db must be a number');
    target.db = Number(db);
  }
  const sentinelUsername = params.get('sentinelUsername');
  const sentinelPassword = params.get('sentinelPassword');
  if (sentinelUsername !== null) target.sentinelUsername = sentinelUsername;
  if (sentinelPassword !== null) target.sentinelPassword = sentinelPassword;
  return target;
}

/** Reconnect forever with capped exponential backoff, so the gateway recovers without a restart. */
export function backoff(maxDelayMs: number): (times: number) => number {
  return (times) => Math.min(50 * 2 ** Math.min(times, 10), maxDelayMs);
}

/** ioredis options shared by every mode: fail fast while Redis is away, recover when it is back. */
export function failFastOptions(tuning: RedisTuning): RedisOptions {
  return {
    // Commands never wait in ioredis's queue for a connection that may never come: the store
    // waits (bounded) for 'ready' itself, and otherwise fails at once with STORE_UNAVAILABLE.
    enableOfflineQueue: false,
    // On a dropped connection, in-flight commands fail instead of being re-sent later: a settle
    // re-sent after the gateway already answered "unavailable" would be a ghost write.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: tuning.commandTimeoutMs,
    connectTimeout: tuning.connectTimeoutMs,
    retryStrategy: backoff(tuning.reconnectMaxDelayMs),
    keepAlive: 10_000,
    connectionName: 'nlgate',
  };
}

/** Creates the ioredis client for a target (standalone or Sentinel: `Redis`; Cluster: `Cluster`). */
export function createRedisClient(target: RedisTarget, tuning: RedisTuning = DEFAULT_TUNING): Redis | Cluster {
  const base = failFastOptions(tuning);
  if (target.mode === 'standalone') return new Redis(target.url, base);
  if (target.mode === 'sentinel') {
    const { sentinels, name, tls, username, password, db, sentinelUsername, sentinelPassword } = target;
    return new Redis({
      ...base,
      sentinels,
      name,
      username,
      password,
      db,
      sentinelUsername,
      sentinelPassword,
      sentinelRetryStrategy: backoff(tuning.reconnectMaxDelayMs),
      sentinelCommandTimeout: tuning.commandTimeoutMs,
      ...(tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    });
  }
  const { retryStrategy: _nodeRetry, enableOfflineQueue: _queue, ...redisOptions } = base;
  const options: ClusterOptions = {
    enableOfflineQueue: false,
    clusterRetryStrategy: backoff(tuning.reconnectMaxDelayMs),
    slotsRefreshTimeout: tuning.connectTimeoutMs,
    redisOptions: {
      ...redisOptions,
      username: target.username,
      password: target.password,
      ...(target.tls ? { tls: {} } : {}),
    },
  };
  return new Cluster(target.nodes, options);
}
