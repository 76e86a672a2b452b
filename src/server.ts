import type { Server } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { composeNlgate, type ComposedNlgate } from './lib/nlgate.ts';
import type { LoadedConfig } from './config/load.ts';
import type { Limits } from './config/schema.ts';
import type { Logger } from './base/logger.ts';
import { adoptSocketHeaders } from './base/request-headers.ts';
import { capConnections, connectionOptions } from './edge/connections.ts';
import { releaseMemoryWhenIdle } from './runtime/idle-release.ts';

export interface RunningServer extends ComposedNlgate {
  url: string;
  server: ServerType;
  /** The separate metrics listener's URL when `server.metricsPort` is set. */
  metricsUrl?: string;
  /** Stops at once: stops accepting connections, then closes the gateway (agents, store). */
  stop(): Promise<void>;
  /**
   * Graceful shutdown (issue 13, docs/operations.md "Shutdown"): `/readyz` turns unready, after
   * `shutdownDelayMs` the listener stops accepting, open streams and promise calls get up to
   * `shutdownGraceMs` to finish, promises still running are released to the other replicas, the
   * remaining connections are cut, and the gateway closes.
   */
  shutdown(): Promise<{ released: number }>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Listens with `fetch` on host:port; resolves with the server and the port it got. */
/** Listens on `hostname:port`; with `limits`, the edge's connection cap and header/request timeouts apply. */
function listen(
  fetch: (req: Request, env: { incoming?: { rawHeaders: readonly string[] } }) => Response | Promise<Response>,
  port: number,
  hostname: string,
  limits?: Limits,
  client: { trustedProxies: readonly string[]; ipv6ClientPrefix: number } = { trustedProxies: [], ipv6ClientPrefix: 128 },
): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve, reject) => {
    const s = serve({ fetch, port, hostname, ...(limits ? { serverOptions: connectionOptions(limits) } : {}) }, (info) =>
      resolve({ server: s, url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${info.port}` }),
    );
    if (limits) capConnections(s as Server, limits, client.trustedProxies, client.ipv6ClientPrefix);
    s.once('error', reject);
  });
}

function closeServer(server: ServerType): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Starts one gateway replica listening on the config's host and port (`PORT`/`HOST` override them). */
export async function startServer(loaded: LoadedConfig, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const cfg = loaded.config.server;
  const port = env.PORT !== undefined ? Number(env.PORT) : cfg.port;
  const hostname = env.HOST ?? cfg.host;
  // The edge's loopback default follows the address actually listened on (HOST overrides the config).
  const config = { ...loaded.config, server: { ...cfg, host: hostname } };
  // The same composition a library user gets (src/lib): the server only adds the listener.
  const gw = await composeNlgate(config, { log, baseDir: loaded.baseDir });
  // Here, and only here, the Request is the one @hono/node-server just made from the socket's lines:
  // the header reads take them as read (src/base/request-headers.ts), not through its Headers.
  const fetch = (req: Request, env: { incoming?: { rawHeaders: readonly string[] } }) => {
    adoptSocketHeaders(req, env.incoming?.rawHeaders);
    return gw.fetch(req, env);
  };
  const { server, url } = await listen(fetch, port, hostname, loaded.config.limits, cfg);
  // Spare heap goes back to the system once traffic stops (src/runtime/idle-release.ts); with
  // idleReleaseMs 0 nothing watches the requests at all.
  const idle = cfg.idleReleaseMs > 0 ? releaseMemoryWhenIdle(server as Server, { periodMs: cfg.idleReleaseMs, log }) : undefined;
  let metrics: { server: ServerType; url: string } | undefined;
  if (cfg.metricsPort !== undefined) {
    const metricsApp = new Hono().get('/metrics', (c) => gw.telemetry.metricsResponse(c));
    metrics = await listen(metricsApp.fetch, cfg.metricsPort, cfg.metricsHost);
  }
  let stopping: Promise<{ released: number }> | undefined;
  const shutdown = (): Promise<{ released: number }> =>
    (stopping ??= (async () => {
      idle?.stop();
      gw.setDraining();
      if (cfg.shutdownDelayMs > 0) await sleep(cfg.shutdownDelayMs);
      const deadline = Date.now() + cfg.shutdownGraceMs;
      // Stop accepting; idle keep-alive connections close now, busy ones when their response ends.
      const closed = closeServer(server);
      const timer = sleep(cfg.shutdownGraceMs);
      const [result] = await Promise.all([gw.gateway.drain(deadline), Promise.race([closed, timer])]);
      // Streams still open after the grace are cut: their clients reconnect to another replica.
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closed;
      if (metrics) await closeServer(metrics.server);
      await gw.close();
      return result;
    })());
  return {
    ...gw,
    url,
    server,
    ...(metrics ? { metricsUrl: metrics.url } : {}),
    shutdown,
    stop: async () => {
      idle?.stop();
      await closeServer(server);
      if (metrics) await closeServer(metrics.server);
      await gw.close();
    },
  };
}
