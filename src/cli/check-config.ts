import { builtinAdapters } from '../../adapters/index.ts';
import { createLogger } from '../base/logger.ts';
import { workerCount, workersProblem } from '../cluster.ts';
import { ConfigError, loadConfigFile, type LoadedConfig } from '../config/load.ts';
import { explainProblems } from './hints.ts';

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

/** Checks one config file as `serve` would load it, and builds its agents; prints the verdict. 0 = valid. */
async function checkOne(file: string): Promise<number> {
  let loaded: LoadedConfig;
  try {
    loaded = loadConfigFile(file, { adapters: builtinAdapters });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(explainProblems(err.source, err.problems));
    return 1;
  }
  // WORKERS may override server.workers: the memory store still needs exactly one.
  let workers: number;
  try {
    workers = workerCount(loaded.config);
  } catch (err) {
    console.error(explainProblems(loaded.source, [(err as Error).message]));
    return 1;
  }
  const invalid = workersProblem(loaded.config, workers);
  // Build every agent too: a catalog file that does not parse or a bad command is a config error.
  const problem = invalid ?? (await buildAgents(loaded));
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

/** `nlgate check-config [FILE...]`: checks each file in turn (docs/cli.md); 1 when any is invalid. */
export async function runCheckConfig(files: readonly string[]): Promise<number> {
  let status = 0;
  for (const file of files) status = Math.max(status, await checkOne(file));
  return status;
}
