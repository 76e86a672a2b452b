import { builtinAdapters } from '../../adapters/index.ts';
import { createLogger } from '../base/logger.ts';
import { EXIT_CONFIG, isWorker, runPrimary, workerCount, workersProblem } from '../cluster.ts';
import { ConfigError, loadConfigFile } from '../config/load.ts';
import type { RunningServer } from '../server.ts';

/**
 * `nlgate serve`: loads and checks the config, then either supervises workers (a cluster primary
 * whose count comes from `server.workers`) or runs one gateway replica until SIGTERM/SIGINT. A
 * worker that finds the config invalid exits with EXIT_CONFIG, which stops its primary.
 * `onServing` gets the replica's server once it listens (src/cli.ts: V8's optimizing compilers come
 * back on with its first request).
 */
export async function serve(path: string, onServing: (server: RunningServer['server']) => void = () => {}): Promise<number> {
  // A worker's config problems stop its primary instead of being restarted forever.
  const invalid = isWorker() ? EXIT_CONFIG : 1;
  let loaded;
  try {
    loaded = loadConfigFile(path, { adapters: builtinAdapters });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return invalid;
    }
    throw err;
  }
  // WORKERS may override server.workers: the memory store still needs exactly one.
  let workers: number;
  try {
    workers = workerCount(loaded.config);
  } catch (err) {
    console.error(`Invalid config ${loaded.source}:\n  - ${(err as Error).message}`);
    return invalid;
  }
  const workersInvalid = workersProblem(loaded.config, workers);
  if (workersInvalid) {
    console.error(`Invalid config ${loaded.source}:\n  - ${workersInvalid}`);
    return invalid;
  }
  const log = createLogger();
  if (workers > 1 && !isWorker()) return runPrimary(workers, log);
  // The server (Hono, the bindings, metrics) is imported here: a cluster primary only forks and
  // supervises, and the server's code and heap would stay in it for the container's life (issue 23).
  const [{ startTracing }, { startServer }] = await Promise.all([import('../telemetry/index.ts'), import('../server.ts')]);
  const stopTracing = await startTracing(process.env);
  const running = await startServer(loaded, log);
  onServing(running.server);
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
