import { fileURLToPath } from 'node:url';
import { builtinAdapters } from '../adapters/index.ts';
import { ConfigError, loadConfigFile, type LoadedConfig } from './config/load.ts';
import { createLogger } from './base/logger.ts';
import { isWorker, runPrimary, workerCount, workersProblem } from './cluster.ts';
import { explainProblems } from './cli/hints.ts';
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

/** Creates (then closes) every agent of a config; returns the first problem, if any. */
async function buildAgents(loaded: LoadedConfig): Promise<string | undefined> {
  for (const [i, agent] of loaded.config.agents.entries()) {
    const factory = builtinAdapters.find((a) => a.kind === agent.kind)!;
    try {
      await factory.load?.();
      const instance = factory.create(agent, { log: createLogger('silent'), baseDir: loaded.baseDir });
      await instance.close?.();
    } catch (err) {
      return `agents.${i} (${agent.name}): ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return undefined;
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
  if (command !== 'serve' && command !== 'check-config') {
    console.error(`Unknown command "${command}"\n\n${usage()}`);
    return 2;
  }
  let loaded;
  try {
    loaded = loadConfigFile(configPath(args), { adapters: builtinAdapters });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(command === 'check-config' ? explainProblems(err.source, err.problems) : err.message);
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
  if (command === 'check-config') {
    // Build every agent too: a catalog file that does not parse or a bad command is a config error.
    const problem = await buildAgents(loaded);
    if (problem) {
      console.error(explainProblems(loaded.source, [problem]));
      return 1;
    }
    console.log(`${loaded.source}: valid`);
    for (const a of loaded.config.agents) console.log(`  agent ${a.name} (${a.kind})`);
    console.log(`  store: ${loaded.config.store.kind}`);
    console.log(`  workers: ${workers}`);
    return 0;
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
