import { fileURLToPath } from 'node:url';
import { builtinAdapters } from '../../adapters/index.ts';
import { createApp, type AppOptions, type GatewayApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { listenApp } from './http.ts';
import { scriptedAdapter } from './scripted-agent.ts';

/** The repository root: relative paths in test configs resolve against it (e.g. `examples/...`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface TestGateway extends GatewayApp {
  /** Base URL of a real HTTP listener on 127.0.0.1 serving the same app. */
  url: string;
}

/**
 * Builds a gateway from a config object (validated like a config file, with the built-in adapter
 * kinds plus the `scripted` test kind) and serves it on a free loopback port.
 */
export async function startGateway(config: Record<string, unknown>, opts: AppOptions = {}): Promise<TestGateway> {
  const adapters = opts.adapters ?? [...builtinAdapters, scriptedAdapter];
  const loaded = parseConfig(config, { adapters, baseDir: opts.baseDir ?? REPO_ROOT, source: 'test config' });
  const gw = await createApp(loaded.config, { log: silentLogger, baseDir: loaded.baseDir, ...opts, adapters });
  const server = await listenApp(gw.app);
  return {
    ...gw,
    url: server.url,
    close: async () => {
      await server.close();
      await gw.close();
    },
  };
}
