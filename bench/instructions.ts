/**
 * `npm run bench:instructions [scenario…]` (issue 25): the machine instructions one request costs the
 * gateway, per scenario (`bench/lib/scenarios.ts`; default: all of them), and the platform floor's
 * (bench/lib/platform-floor.ts) for scale, counted under valgrind's callgrind rather than timed.
 *
 * Why a count: on this VM the CPU time of one request moves up to six times between hours (the floor
 * took 38 µs an ask at 07:00 and 82 at 10:48 on 2026-11-28), so a change of 5 µs cannot be told from
 * the hour by timing. The windows of one process agree within a few per cent, and so do quiet
 * processes of one tree (docs/benchmarks.md "Instructions a request" says where they do not). A
 * count leaves out cache misses and the kernel's side of a syscall, and weighs timer-driven work
 * twenty to fifty times more per request than at full speed: it is the gateway's own work, not its
 * wall-clock cost, and `npm run bench` stays the judge of throughput.
 *
 * Per scenario: WARM requests uninstrumented (V8 tiers code up by how often it runs, not by time),
 * instrumentation on, then WINDOWS windows of MEASURE requests from 8 connections, each counted from
 * zero to a dump; the median window is the figure. Everything the process does in a window is
 * counted: the loop, GC, V8's compiler threads, the log writes' user-space part; not V8's memory
 * reducer, which runs by the clock and took valgrind's slowness for idleness (COUNTED_FLAGS).
 *
 *   BENCH_WARM=15000 BENCH_MEASURE=2000 BENCH_WINDOWS=3 npm run bench:instructions nlweb-json mcp
 *   BENCH_FLOOR=0 …            the gateway alone (comparing two trees)
 *   BENCH_VERBOSE=1 …          the functions that spent them, JIT code named (bench/lib/callgrind-js.ts)
 *   BENCH_CALLEES=name,… …     with BENCH_VERBOSE, what the functions so named called
 *   BENCH_CALLERS=name,… …     with BENCH_VERBOSE, the JavaScript functions that called those so named
 *   BENCH_KEEP=1 …             keep the dumps (their directories are printed by valgrind)
 *   BENCH_NODE_FLAGS='--x' …   more Node/V8 flags for the counted processes (gateway and floor)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { callersOf, functionCosts } from './lib/callgrind-js.ts';
import { npmStartFlags, startGateway } from './lib/gateway.ts';
import { startNginx } from './lib/nginx.ts';
import { startPlatformFloor } from './lib/platform-floor.ts';
import { profileConfig, specFor } from './lib/scenarios.ts';

const ALL = ['nlweb-json', 'nlip', 'mcp', 'mcp-2026', 'a2a', 'webtool', 'second-turn'];
const WARM = Number(process.env.BENCH_WARM ?? 15000);
const MEASURE = Number(process.env.BENCH_MEASURE ?? 2000);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 3);
const CONNECTIONS = 8;
// V8's memory reducer starts full collections when the allocation rate looks low, and it reads the
// rate by the clock: under valgrind a loaded gateway allocates 20–50 times slower per second, so the
// reducer took it for idle and collected in some windows but not others (an NLWeb pass-through's
// windows read 441 to 1,058 thousand in one process; with it off, 393 to 448). At full speed under
// load it does not run, so it is off in the counted process (the floor's too, for the same terms).
// BENCH_NODE_FLAGS='--flag …' adds an experiment's flags to both.
const COUNTED_FLAGS = ['--no-memory-reducer', ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])];

type Spec = Awaited<ReturnType<typeof specFor>>;

/** Sends `n` requests of `spec` from the pool's connections, each answer read to its end; throws on any non-2xx. */
async function send(pool: Pool, spec: Spec, n: number): Promise<void> {
  const url = new URL(spec.url);
  let left = n;
  let failed = '';
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (left-- > 0) {
        const r = await pool.request({ path: url.pathname + url.search, method: 'POST', headers: spec.headers, body: spec.body });
        const text = await r.body.text();
        if (r.statusCode >= 300) failed ||= `${r.statusCode} ${text.slice(0, 200)}`;
      }
    }),
  );
  if (failed) throw new Error(`${spec.url}: ${failed}`);
}

/** A process under callgrind: `instrument()` switches counting code on or off, `window()` counts what it does while `work` runs. */
class Counted {
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

/** The arguments that run a command under callgrind, its dumps and its control pipes in `dir`. */
function callgrind(dir: string): string[] {
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--vgdb-prefix=${join(dir, 'vgdb')}`, `--callgrind-out-file=${join(dir, 'callgrind.out')}`, '--dump-instr=no', '--compress-strings=no'];
}

/** The JavaScript functions of a dump, named from V8's perf map: the top by inclusive and by self instructions a request (thousands). */
function jsFunctions(file: string, map: string, n = Number(process.env.BENCH_TOP ?? 40)): string {
  const costs = functionCosts(file, map).filter((c) => c.name.includes('/') && !c.name.includes('node:internal/main'));
  const k = (x: number) => (x / MEASURE / 1000).toFixed(1).padStart(7);
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
function topFunctions(file: string, n = 15): string {
  const out = spawnSync('callgrind_annotate', ['--threshold=100', file], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout ?? '';
  const rows = out.split('\n').filter((l) => /^\s*[\d,]+ \(/.test(l));
  return rows.slice(1, n + 1).join('\n');
}

/**
 * One target's counts: warmed up uninstrumented, a few requests to translate again, then WINDOWS
 * windows of MEASURE requests each; instructions a request (in thousands) of each window.
 */
async function count(counted: Counted, spec: Spec): Promise<{ perRequest: number[]; file: string }> {
  const pool = new Pool(new URL(spec.url).origin, { connections: CONNECTIONS });
  try {
    counted.instrument(false);
    await send(pool, spec, WARM);
    counted.instrument(true);
    await send(pool, spec, 100);
    const perRequest: number[] = [];
    let file = '';
    for (let i = 0; i < WINDOWS; i++) {
      const w = await counted.window(() => send(pool, spec, MEASURE));
      perRequest.push(w.instructions / MEASURE / 1000);
      file = w.file;
    }
    return { perRequest, file };
  } finally {
    await pool.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A row: the median window, the ratios, and every window (how far the count moved). */
function row(target: string, scenario: string, k: number[], floor?: number, passThrough?: number): string {
  const m = median(k);
  const ratio = (base?: number) => (base ? (base / m).toFixed(2) : '').padStart(10);
  return `${target.padEnd(7)} ${scenario.padEnd(12)} ${m.toFixed(1).padStart(12)} ${ratio(floor)} ${ratio(passThrough)}   ${k.map((x) => x.toFixed(1)).join(' ')}`;
}

async function main(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed (apt-get install valgrind)');
  const scenarios = process.argv.length > 2 ? process.argv.slice(2) : ALL;
  const nginx = await startNginx(1);
  const dirs = [mkdtempSync(join(tmpdir(), 'nlgate-cg-floor-')), mkdtempSync(join(tmpdir(), 'nlgate-cg-gw-'))];
  // BENCH_FLOOR=0: the gateway alone (comparing two trees, where the floor is the same for both).
  const floor = process.env.BENCH_FLOOR === '0' ? undefined : await startPlatformFloor(nginx.upstreamUrl, callgrind(dirs[0]!), COUNTED_FLAGS);
  // No idle release: under valgrind a request takes 50 times as long, so the pause of a dump reads
  // as a quiet period, and one release's full collections counted in a window tripled its figure.
  const config = { ...profileConfig(nginx.upstreamUrl), server: { idleReleaseMs: 0 } };
  const verbose = Boolean(process.env.BENCH_VERBOSE);
  // In verbose mode V8 writes the map that names its JIT code (bench/lib/callgrind-js.ts).
  const gw = await startGateway(config, 1, { LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' }, [...npmStartFlags(), ...COUNTED_FLAGS, ...(verbose ? ['--perf-basic-prof'] : [])], callgrind(dirs[1]!));
  const explain = (file: string, pid?: number) => {
    if (!verbose) return;
    console.log(topFunctions(file));
    if (pid) console.log(jsFunctions(file, `/tmp/perf-${pid}.map`));
  };
  try {
    console.log(`Node ${process.version}, callgrind: ${WARM} requests to warm up, then ${WINDOWS} windows of ${MEASURE} (${CONNECTIONS} connections)\n`);
    console.log('target  scenario     k instr/req    × floor  × nlweb-json   each window');
    let floorK: number | undefined;
    if (floor) {
      const floorSpec = { url: `${floor.url}/ask`, body: JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } }), headers: { 'content-type': 'application/json' } };
      const base = await count(new Counted(floor.pid, dirs[0]!, process.env.HOST), floorSpec);
      console.log(row('floor', 'nlweb-json', base.perRequest));
      explain(base.file);
      floorK = median(base.perRequest);
    }

    const counted = new Counted(gw.pid, dirs[1]!, '127.0.0.1');
    let passThrough: number | undefined;
    for (const scenario of scenarios) {
      const { perRequest, file } = await count(counted, await specFor(scenario, gw.url));
      if (scenario === 'nlweb-json') passThrough = median(perRequest);
      console.log(row('nlgate', scenario, perRequest, floorK, passThrough));
      explain(file, gw.pid);
    }
  } finally {
    await Promise.all([gw.stop(), floor?.stop()]);
    await nginx.stop();
    if (verbose) rmSync(`/tmp/perf-${gw.pid}.map`, { force: true });
    if (!process.env.BENCH_KEEP) for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
