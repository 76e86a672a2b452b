import { isWorker, runPrimary, workersFromEnv } from '../cluster.ts';
import type { RunningServer } from '../server.ts';
import { usage, VERSION } from './usage.ts';

function configOf(args: string[], defaultConfig: string): string {
  const i = args.indexOf('--config');
  if (i >= 0 && args[i + 1]) return args[i + 1]!;
  const positional = args.slice(1).find((a) => !a.startsWith('--'));
  return positional ?? (process.env.NLGATE_CONFIG || defaultConfig);
}

// Every command's code is imported when that command runs: a cluster primary started with WORKERS
// (docker-compose.yml, the Kubernetes manifest) loads none of the config schemas, adapters or
// server it never uses: 12-13 MiB of private memory instead of 24-26 for the container's life (issue 23).
/**
 * Runs one `nlgate` command (src/cli.ts is the entry); resolves the exit code, or -1 to keep running
 * (`serve`, which calls `onServing` once a replica listens).
 */
export async function main(args: string[], defaultConfig: string, onServing?: (server: RunningServer['server']) => void): Promise<number> {
  const configPath = (a: string[]) => configOf(a, defaultConfig);
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
  if (command === 'probe') return (await import('./probe.ts')).runProbe(args.slice(1));
  if (command === 'check-config') {
    const files = args.slice(1).filter((a) => !a.startsWith('--'));
    return (await import('./check-config.ts')).runCheckConfig(files.length ? files : [configPath(args)]);
  }
  if (command !== 'serve') {
    console.error(`Unknown command "${command}"\n\n${usage()}`);
    return 2;
  }
  if (!isWorker()) {
    // WORKERS names the count without the config: a primary only forks and supervises, and its
    // first worker checks the config (a worker that finds it invalid stops the primary, exit 1).
    let fromEnv: number | undefined;
    try {
      fromEnv = workersFromEnv(process.env);
    } catch (err) {
      console.error(`Invalid config ${configPath(args)}:\n  - ${(err as Error).message}`);
      return 1;
    }
    if (fromEnv !== undefined && fromEnv > 1) {
      return runPrimary(fromEnv, (await import('../base/logger.ts')).createLogger());
    }
  }
  return (await import('./serve.ts')).serve(configPath(args), onServing);
}
