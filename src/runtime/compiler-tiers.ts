import { setFlagsFromString } from 'node:v8';
import type { RequestSource } from './idle-release.ts';

/**
 * V8 options that say the operator chose the compilers (`node --jitless`, `NODE_OPTIONS=--no-opt`):
 * then they are left exactly as chosen. `--jitless` and `--lite-mode` also forbid turning them on.
 */
const OPERATOR_CHOICE = /(^|\s)--(no-)?(opt|turbofan|maglev|jitless|lite-mode)(=|\s|$)/;

/**
 * Whether this V8 runs Maglev by default, so that pausing it and turning it back on restores the
 * default: V8 13 (Node 24) on x64 and arm64 does; Node 22's V8 12.4 ships it off (`--v8-options`).
 */
export function maglevByDefault(arch: string = process.arch, v8Version: string = process.versions.v8): boolean {
  return (arch === 'x64' || arch === 'arm64') && Number.parseInt(v8Version, 10) >= 13;
}

let paused = false;
let pausedMaglev = false;

/**
 * Turns V8's optimizing compilers (Maglev and TurboFan) off while a replica starts, until
 * `resumeOptimizingCompilers` (issue 23, idle RSS). Start-up code runs once, yet its loops (the
 * config's and protocols' schemas, the catalog's index) got about fifty functions optimized, and
 * running the compilers made ≈ 6 MiB of their own code in the node binary resident for the
 * replica's whole idle life (docs/benchmarks.md, "Seventh round"). Sparkplug and the interpreter
 * still run start-up. Returns whether it paused: not when the operator set compiler options of
 * their own (`execArgv`, `NODE_OPTIONS`). Maglev is paused only where it runs by default. The
 * entry that calls this is built apart and imports no module of the bundle first (scripts/build.mjs
 * `entryBuild`): loading one got Node's path code optimized before the pause, ≈ 2 MiB
 * (docs/benchmarks.md, "Eighth round"). Node refuses these flags in NODE_OPTIONS.
 */
export function pauseOptimizingCompilers(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? '', maglev: boolean = maglevByDefault()): boolean {
  if (paused || OPERATOR_CHOICE.test(`${execArgv.join(' ')} ${nodeOptions}`)) return false;
  pausedMaglev = maglev;
  if (pausedMaglev) setFlagsFromString('--no-maglev');
  setFlagsFromString('--no-turbofan');
  paused = true;
  return true;
}

/**
 * Turns the compilers paused by `pauseOptimizingCompilers` back on (their defaults: Maglev only where
 * it runs by default), once the replica serves: hot request paths are optimized as usual from then
 * on. Does nothing when none was paused.
 */
export function resumeOptimizingCompilers(): void {
  if (!paused) return;
  if (pausedMaglev) setFlagsFromString('--maglev');
  setFlagsFromString('--turbofan');
  paused = false;
}

/** Requests that are not traffic: orchestrators' probes and metric scrapes arrive whether or not anyone uses the replica. */
const PROBES = /^\/(healthz|readyz|livez|metrics)(\?|$)/;

/**
 * Turns the paused compilers back on at the replica's first request that is not a probe or a scrape:
 * work that follows the listener's start (the console's assets, agents' descriptions) still runs
 * without them, and an idle replica answering probes never runs them. Resuming at the listener's
 * start instead left ≈ 6 MiB more resident (docs/benchmarks.md, "Seventh round").
 */
export function resumeOnTraffic(server: RequestSource): void {
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
