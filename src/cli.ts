import { fileURLToPath } from 'node:url';
import { builtinAdapters } from '../adapters/index.ts';
import { ConfigError, loadConfigFile } from './config/load.ts';
import { createLogger } from './base/logger.ts';
import { isWorker, runPrimary, workerCount, workersProblem } from './cluster.ts';
import { runCheckConfig } from './cli/check-config.ts';
import { runProbe } from './cli/probe.ts';
import { usage, VERSION } from './cli/usage.ts';

/** The bundled default config, found relative to this file so `npm start` works from any directory. */
const DEFAULT_CONFIG = fileURLToPath(new URL('../config/gateway.yaml', import.meta.url));

function configPath(args: string[]): string {
  const i = args.indexOf('--config');
  if (i >= 0 && args[i + 1]) return args[i + 1]!;
  const positional = args.slice(1).find((a) => !a.startsWith('--'));
  return positional ?? (process.env.NLGATE_CONFIG || DEFAULT_CONFIG);
}

async function main(args: string[]): Promise<number> {
  // No command shows help rather than starting a server: `serve` is said on purpose (issue 13, item 9).
  const command = args[0] ?? 'help';
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(usage());
    return 0;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(VERSION);
    return 0;
  }
  if (command === 'probe') return runProbe(args.slice(1));
  if (command === 'check-config') {
    const files = args.slice(1).filter((a) => !a.startsWith('--'));
    return runCheckConfig(files.length ? files : [configPath(args)]);
  }
  if (command !== 'serve') {
    console.error(`Unknown command "${command}"\n\n${usage()}`);
    return 2;
  }
  let loaded;
  try {
    loaded = loadConfigFile(configPath(args), { adapters: builtinAdapters });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  // WORKERS may override server.workers: the memory store still needs exactly one.
  let workers: number;
  try {
    workers = workerCount(loaded.config);
  } catch (err) {
    console.error(`Invalid config ${loaded.source}:\n  - ${(err as Error).message}`);
    return 1;
  }
  const workersInvalid = workersProblem(loaded.config, workers);
  if (workersInvalid) {
    console.error(`Invalid config ${loaded.source}:\n  - ${workersInvalid}`);
    return 1;
  }
  const log = createLogger();
  if (workers > 1 && !isWorker()) return runPrimary(workers, log);
  // The server (Hono, the bindings, metrics) is imported here: a cluster primary only forks and
  // supervises, and the server's code and heap would stay in it for the container's life (issue 23).
  const [{ startTracing }, { startServer }] = await Promise.all([import('./telemetry/index.ts'), import('./server.ts')]);
  const stopTracing = await startTracing(process.env);
  const running = await startServer(loaded, log);
  log.info(
    {
      url: running.url,
      ...(running.metricsUrl ? { metricsUrl: running.metricsUrl } : {}),
      config: loaded.source,
      agents: loaded.config.agents.map((a) => a.name),
      store: loaded.config.store.kind,
    },
    'nlgate listening',
  );
  let signalled = false;
  const shutdown = (signal: string) => {
    // A second signal while draining means "now": exit without waiting for the grace period.
    if (signalled) process.exit(1);
    signalled = true;
    const { shutdownGraceMs, shutdownDelayMs } = loaded.config.server;
    log.info({ signal, shutdownDelayMs, shutdownGraceMs }, 'shutting down: unready, draining streams and promises');
    running
      .shutdown()
      .then(async ({ released }) => {
        log.info({ released }, 'shut down');
        await stopTracing().catch(() => undefined);
        process.exit(0);
      })
      .catch((err: unknown) => {
        log.error({ err: String(err) }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  return -1; // keep running
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    console.error(`nlgate: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
