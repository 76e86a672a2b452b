/**
 * Gateway processes for the bench: the compiled `dist/cli.js`, built from the tree as it is when the
 * first gateway of a run starts; `RSS` of the process and its workers from /proc.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface BenchGateway {
  url: string;
  pid: number;
  /** How it was run (printed in reports): always `dist/cli.js`, built from the tree by buildOnce. */
  runner: string;
  /** Resident memory of the process and its workers (not its agents' processes), in MiB. */
  rssMiB(): number;
  /** CPU time (user + system) the process and its workers have spent so far, in µs. */
  cpuUs(): number;
  stop(): Promise<void>;
}

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * How long after the load (or after start) a gateway has had two idle looks (server.idleReleaseMs,
 * 5 s) and a margin: it has given its spare heap back (src/runtime/idle-release.ts).
 */
export const SETTLED_MS = 12_000;

function rssOf(pid: number): number {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** User + system CPU time of a process so far, in µs (/proc/<pid>/stat, clock ticks of 10 ms). */
export function cpuUsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout ?? '';
  return out.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
}

/** Whether a child process is one of the gateway's cluster workers (same `cli serve` command line). */
function isGatewayWorker(pid: number): boolean {
  try {
    return /cli\.(js|ts)\0serve\0/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * The gateway's own processes: itself and its cluster workers. The children a stdio MCP agent
 * spawns (the bench's `mcpfix`, a Node process of its own) are the agent's, not the gateway's: until
 * 2026-11-27 their memory and CPU were counted in the gateway's.
 */
function gatewayPids(pid: number): number[] {
  return [pid, ...childrenOf(pid).filter(isGatewayWorker)];
}

/**
 * The V8 flags `npm start` gives the gateway (`node <flags> dist/cli.js serve` in package.json), so
 * the bench runs it as `npm start` does; read from package.json so the two never differ.
 */
export function npmStartFlags(): string[] {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.match(/node ((?:--\S+ )*)dist\/cli\.js serve/)?.[1]!.trim().split(' ').filter(Boolean) ?? [];
}

let built: string | undefined;

/**
 * Builds `dist/` from the tree once per bench process (≈ 1.5 s). A bench used to run whatever
 * `dist/cli.js` an earlier build had left, so edits made since were not what it measured (found when
 * `npm run bench:streams` ran a build that predated a config key).
 * Resolves the CLI entry to run.
 */
export function buildOnce(): string {
  if (built) return built;
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stderr}`);
  return (built = join(ROOT, 'dist/cli.js'));
}

/**
 * Starts `nlgate serve` with `config` on a free port, as `npm start` runs it; resolves when every
 * worker listens. `wrap` runs node under another command (`valgrind …`, bench/instructions.ts), which
 * must keep the process's pid.
 */
export async function startGateway(
  config: Record<string, unknown>,
  workers = 1,
  env: Record<string, string> = {},
  nodeArgs: string[] = npmStartFlags(),
  wrap: string[] = [],
): Promise<BenchGateway> {
  const file = join(ROOT, `.nlgate-bench-${process.pid}-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, stringify(config));
  const compiled = buildOnce();
  const [command, ...args] = [...wrap, process.execPath, ...nodeArgs, compiled, 'serve', '--config', file];
  const child: ChildProcess = spawn(command!, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Logs are kept only until every worker listens (the access log of a load run is not held).
  let out = '';
  let started = false;
  child.stdout!.on('data', (d: Buffer) => !started && (out += d));
  // After start, keep only the tail of stderr: a crash under load is reported with it.
  let tail = '';
  child.stderr!.on('data', (d: Buffer) => {
    if (!started) out += d;
    tail = (tail + d).slice(-4000);
  });
  let stopping = false;
  child.once('exit', (code, signal) => started && !stopping && console.error(`gateway ${child.pid} exited (${code ?? signal}):\n${tail}`));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}`)), 60_000);
    const check = () => {
      const urls = [...out.matchAll(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/g)];
      if (urls.length >= workers) {
        clearTimeout(timer);
        started = true;
        resolve(urls[0]![1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited (${code}):\n${out}`));
    });
  });
  return {
    url,
    pid: child.pid!,
    runner: 'dist/cli.js',
    rssMiB: () => Math.round(gatewayPids(child.pid!).reduce((a, p) => a + rssOf(p), 0)),
    cpuUs: () => gatewayPids(child.pid!).reduce((a, p) => a + cpuUsOf(p), 0),
    stop: async () => {
      stopping = true;
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(file, { force: true });
    },
  };
}

/** What a gateway's memory is made of, from its own /metrics (prom-client's process and V8 heap gauges), in MiB. */
export async function heapFigures(gw: BenchGateway): Promise<Record<string, number>> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const mib = (re: RegExp) => Math.round(Number(text.match(re)?.[1] ?? NaN) / 104857.6) / 10;
  return {
    rssMiB: Math.round(gw.rssMiB()),
    heapUsedMiB: mib(/^nodejs_heap_size_used_bytes (\d+)/m),
    heapTotalMiB: mib(/^nodejs_heap_size_total_bytes (\d+)/m),
    newSpaceMiB: mib(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/m),
    oldSpaceMiB: mib(/^nodejs_heap_space_size_total_bytes\{space="old"\} (\d+)/m),
    externalMiB: mib(/^nodejs_external_memory_bytes (\d+)/m),
  };
}
