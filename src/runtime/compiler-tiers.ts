import { setFlagsFromString } from 'node:v8';

/**
 * V8 options that say the operator chose the compilers (`node --jitless`, `NODE_OPTIONS=--no-opt`):
 * then they are left exactly as chosen. `--jitless` and `--lite-mode` also forbid turning them on.
 */
const OPERATOR_CHOICE = /(^|\s)--(no-)?(opt|turbofan|maglev|jitless|lite-mode)(=|\s|$)/;

/** The architectures whose V8 has Maglev on by default (Node 22 and later): only there is "back on" the default. */
const MAGLEV_ARCHES = new Set(['x64', 'arm64']);

let paused = false;

/**
 * Turns V8's optimizing compilers (Maglev and TurboFan) off while a replica starts, until
 * `resumeOptimizingCompilers` (issue 23, idle RSS). Start-up code runs once, yet its loops (the
 * config's and protocols' schemas, the catalog's index) got about fifty functions optimized, and
 * running the compilers made ≈ 6 MiB of their own code in the node binary resident for the
 * replica's whole idle life (docs/benchmarks.md, "Seventh round"). Sparkplug and the interpreter
 * still run start-up. Returns whether it paused: not when the operator set compiler options of
 * their own (`execArgv`, `NODE_OPTIONS`), nor on an architecture without Maglev by default. Node's
 * own bootstrap runs before this (its path code gets one Maglev compile, ≈ 2 MiB); Node refuses
 * these flags in NODE_OPTIONS, so only a changed command line could pause that too.
 */
export function pauseOptimizingCompilers(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? '', arch: string = process.arch): boolean {
  if (paused || !MAGLEV_ARCHES.has(arch) || OPERATOR_CHOICE.test(`${execArgv.join(' ')} ${nodeOptions}`)) return false;
  setFlagsFromString('--no-maglev');
  setFlagsFromString('--no-turbofan');
  paused = true;
  return true;
}

/**
 * Turns the compilers paused by `pauseOptimizingCompilers` back on (their defaults), once the replica
 * serves: hot request paths are optimized as usual from then on. Does nothing when none was paused.
 */
export function resumeOptimizingCompilers(): void {
  if (!paused) return;
  setFlagsFromString('--maglev');
  setFlagsFromString('--turbofan');
  paused = false;
}

/** Requests that are not traffic: orchestrators' probes and metric scrapes arrive whether or not anyone uses the replica. */
const PROBES = /^\/(healthz|readyz|livez|metrics)(\?|$)/;

/** What is watched for the first request: a Node HTTP server (its `request` event). */
export interface RequestEvents {
  on(event: 'request', listener: (req: { url?: string }) => void): unknown;
  off(event: 'request', listener: (req: { url?: string }) => void): unknown;
}

/**
 * Turns the paused compilers back on at the replica's first request that is not a probe or a scrape:
 * work that follows the listener's start (the console's assets, agents' descriptions) still runs
 * without them, and an idle replica answering probes never runs them. Resuming at the listener's
 * start instead left ≈ 6 MiB more resident (docs/benchmarks.md, "Seventh round").
 */
export function resumeOnTraffic(server: RequestEvents): void {
  if (!paused) return;
  const first = (req: { url?: string }) => {
    if (PROBES.test(req.url ?? '')) return;
    server.off('request', first);
    resumeOptimizingCompilers();
  };
  server.on('request', first);
}

/** Whether the compilers are paused now (for tests and diagnostics). */
export function optimizingCompilersPaused(): boolean {
  return paused;
}
