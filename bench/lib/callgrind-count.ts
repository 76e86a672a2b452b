/**
 * Counting the machine instructions a served request costs, under valgrind's callgrind: the method
 * of `npm run bench:instructions`, shared with `BENCH_COUNT=1 npm run bench:layers` (issue 25).
 * Why a count and not a time: docs/benchmarks.md "Instructions a request".
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { callersOf, functionCosts } from './callgrind-js.ts';

/** A request to repeat: where, what body, which headers. */
export interface CountedRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** How many requests warm a process up (uninstrumented), how many make a window, how many windows. */
export interface CountPlan {
  warm: number;
  measure: number;
  windows: number;
}

/** The plan from BENCH_WARM, BENCH_MEASURE and BENCH_WINDOWS (defaults 15,000, 2,000 and 3). */
export function countPlanFromEnv(): CountPlan {
  return {
    warm: Number(process.env.BENCH_WARM ?? 15000),
    measure: Number(process.env.BENCH_MEASURE ?? 2000),
    windows: Number(process.env.BENCH_WINDOWS ?? 3),
  };
}

/** Concurrent connections the counted load comes from. */
export const CONNECTIONS = 8;

// V8's memory reducer starts full collections when the allocation rate looks low, and it reads the
// rate by the clock: under valgrind a loaded gateway allocates 20–50 times slower per second, so the
// reducer took it for idle and collected in some windows but not others (an NLWeb pass-through's
// windows read 441 to 1,058 thousand in one process; with it off, 393 to 448). At full speed under
// load it does not run, so it is off in every counted process (the floor's too, for the same terms).
// BENCH_NODE_FLAGS='--flag …' adds an experiment's flags to them all.
export const COUNTED_FLAGS = ['--no-memory-reducer', ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])];

/** Sends `n` requests of `req` from the pool's connections, each answer read to its end; throws on any non-2xx. */
async function send(pool: Pool, req: CountedRequest, n: number): Promise<void> {
  const url = new URL(req.url);
  let left = n;
  let failed = '';
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (left-- > 0) {
        const r = await pool.request({ path: url.pathname + url.search, method: 'POST', headers: req.headers, body: req.body });
        const text = await r.body.text();
        if (r.statusCode >= 300) failed ||= `${r.statusCode} ${text.slice(0, 200)}`;
      }
    }),
  );
  if (failed) throw new Error(`${req.url}: ${failed}`);
}

/** The arguments that run a command under callgrind, its dumps and its control pipes in `dir`. */
export function callgrindArgs(dir: string): string[] {
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--vgdb-prefix=${join(dir, 'vgdb')}`, `--callgrind-out-file=${join(dir, 'callgrind.out')}`, '--dump-instr=no', '--compress-strings=no'];
}

/** Whether valgrind runs here. */
export const valgrindAvailable = (): boolean => spawnSync('valgrind', ['--version']).status === 0;

/** A process under callgrind: `instrument()` switches counting code on or off, `window()` counts what it does while `work` runs. */
export class Counted {
  private dumps = 0;
  constructor(
    readonly pid: number,
    private readonly dir: string,
    /** The process's $HOST: vgdb names its control pipes after it (the gateway is given 127.0.0.1). */
    private readonly host: string | undefined,
  ) {}

  private control(flag: string): void {
    const r = spawnSync('callgrind_control', [`--vgdb-prefix=${join(this.dir, 'vgdb')}`, flag, String(this.pid)], { encoding: 'utf8', env: { ...process.env, HOST: this.host } });
    if (r.status !== 0 || !r.stdout.includes('OK') || r.stderr.includes('error')) throw new Error(`callgrind_control ${flag}: ${r.stdout}${r.stderr}`);
  }

  /**
   * Instrumentation on or off. It is off while the process starts and warms up, which runs several
   * times faster so; switching drops valgrind's translations, so a few requests after `on` are not counted.
   */
  instrument(on: boolean): void {
    this.control(`--instr=${on ? 'on' : 'off'}`);
  }

  /** The instructions the process executed while `work` ran, and the dump that holds them. */
  async window(work: () => Promise<void>): Promise<{ instructions: number; file: string }> {
    this.control('--zero');
    await work();
    this.control('--dump');
    const file = join(this.dir, `callgrind.out.${++this.dumps}`);
    let summary: RegExpMatchArray | null = null;
    for (let i = 0; i < 600 && !summary; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (existsSync(file)) summary = readFileSync(file, 'utf8').match(/^totals: (\d+)/m);
    }
    if (!summary) throw new Error(`no summary in ${file}`);
    return { instructions: Number(summary[1]), file };
  }
}

/**
 * One target's counts: warmed up uninstrumented (V8 tiers code up by how often it runs, not by
 * time), a few requests to translate again, then `plan.windows` windows of `plan.measure` requests;
 * thousands of instructions a request in each window, and the last window's dump.
 */
export async function countRequests(counted: Counted, req: CountedRequest, plan: CountPlan): Promise<{ perRequest: number[]; file: string }> {
  const pool = new Pool(new URL(req.url).origin, { connections: CONNECTIONS });
  try {
    counted.instrument(false);
    await send(pool, req, plan.warm);
    counted.instrument(true);
    await send(pool, req, 100);
    const perRequest: number[] = [];
    let file = '';
    for (let i = 0; i < plan.windows; i++) {
      const w = await counted.window(() => send(pool, req, plan.measure));
      perRequest.push(w.instructions / plan.measure / 1000);
      file = w.file;
    }
    return { perRequest, file };
  } finally {
    await pool.close();
  }
}

/**
 * The JavaScript functions of a dump of `measure` requests, named from V8's perf map: the top by
 * inclusive and by self instructions a request (thousands); BENCH_CALLEES and BENCH_CALLERS add who
 * the functions so named called, and who called them.
 */
export function jsFunctions(file: string, map: string, measure: number, n = Number(process.env.BENCH_TOP ?? 40)): string {
  const costs = functionCosts(file, map).filter((c) => c.name.includes('/') && !c.name.includes('node:internal/main'));
  const k = (x: number) => (x / measure / 1000).toFixed(1).padStart(7);
  const list = (by: 'inclusive' | 'self') => [...costs].sort((a, b) => b[by] - a[by]).slice(0, n).map((c) => `${k(c.inclusive)} ${k(c.self)}  ${c.name.slice(0, 140)}`);
  // A callee's or a caller's line: the calls' cost in the inclusive column, then the name.
  const callLine = (name: string, cost: number) => `${k(cost)}           ${name.slice(0, 140)}`;
  // BENCH_CALLEES=<text>,…: what the functions whose name holds a <text> called.
  const of = process.env.BENCH_CALLEES?.split(',');
  const callees = of
    ? costs
        .filter((c) => of.some((o) => c.name.includes(o)))
        .flatMap((c) => [`  callees of ${c.name.slice(0, 120)}`, ...[...c.callees].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([name, cost]) => callLine(name, cost))])
    : [];
  // BENCH_CALLERS=<text>,…: the JavaScript functions that called those whose name holds a <text> (a builtin's callers).
  const to = process.env.BENCH_CALLERS?.split(',');
  const callers = to ? [`  callers of ${to.join(', ')}`, ...callersOf(costs, to).slice(0, n).map((c) => callLine(c.name, c.cost))] : [];
  return ['  incl k  self k  function (by inclusive)', ...list('inclusive'), '  incl k  self k  function (by self)', ...list('self'), ...callees, ...callers].join('\n');
}

/** The functions that executed the most instructions in a dump (`callgrind_annotate`). */
export function topFunctions(file: string, n = 15): string {
  const out = spawnSync('callgrind_annotate', ['--threshold=100', file], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout ?? '';
  const rows = out.split('\n').filter((l) => /^\s*[\d,]+ \(/.test(l));
  return rows.slice(1, n + 1).join('\n');
}
