import type { Server } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { createApp, type GatewayApp } from './app.ts';
import type { LoadedConfig } from './config/load.ts';
import type { Logger } from './core/logger.ts';
import { capConnections, connectionOptions } from './edge/connections.ts';

export interface RunningServer extends GatewayApp {
  url: string;
  server: ServerType;
  /** Stops accepting connections, then closes the gateway (agents, store). */
  stop(): Promise<void>;
}

/** Starts one gateway replica listening on the config's host and port (`PORT`/`HOST` override them). */
export async function startServer(loaded: LoadedConfig, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const port = env.PORT !== undefined ? Number(env.PORT) : loaded.config.server.port;
  const hostname = env.HOST ?? loaded.config.server.host;
  // The edge's loopback default follows the address actually listened on (HOST overrides the config).
  const config = { ...loaded.config, server: { ...loaded.config.server, host: hostname } };
  const gw = await createApp(config, { log, baseDir: loaded.baseDir });
  const { server, actualPort } = await new Promise<{ server: ServerType; actualPort: number }>((resolve, reject) => {
    const limits = loaded.config.limits;
    const s = serve({ fetch: gw.app.fetch, port, hostname, serverOptions: connectionOptions(limits) }, (info) => resolve({ server: s, actualPort: info.port }));
    capConnections(s as Server, limits);
    s.once('error', reject);
  });
  const url = `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${actualPort}`;
  return {
    ...gw,
    url,
    server,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gw.close();
    },
  };
}
