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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callgrindArgs, Counted, COUNTED_FLAGS, CONNECTIONS, countPlanFromEnv, countRequests, jsFunctions, topFunctions, valgrindAvailable } from './lib/callgrind-count.ts';
import { npmStartFlags, startGateway } from './lib/gateway.ts';
import { startNginx } from './lib/nginx.ts';
import { startPlatformFloor } from './lib/platform-floor.ts';
import { profileConfig, specFor } from './lib/scenarios.ts';
import { median } from './lib/in-process.ts';

const ALL = ['nlweb-json', 'nlip', 'mcp', 'mcp-2026', 'a2a', 'webtool', 'second-turn'];
const PLAN = countPlanFromEnv();
const { warm: WARM, measure: MEASURE, windows: WINDOWS } = PLAN;

/** A row: the median window, the ratios, and every window (how far the count moved). */
function row(target: string, scenario: string, k: number[], floor?: number, passThrough?: number): string {
  const m = median(k);
  const ratio = (base?: number) => (base ? (base / m).toFixed(2) : '').padStart(10);
  return `${target.padEnd(7)} ${scenario.padEnd(12)} ${m.toFixed(1).padStart(12)} ${ratio(floor)} ${ratio(passThrough)}   ${k.map((x) => x.toFixed(1)).join(' ')}`;
}

async function main(): Promise<void> {
  if (!valgrindAvailable()) throw new Error('valgrind is not installed (apt-get install valgrind)');
  const scenarios = process.argv.length > 2 ? process.argv.slice(2) : ALL;
  const nginx = await startNginx(1);
  const dirs = [mkdtempSync(join(tmpdir(), 'nlgate-cg-floor-')), mkdtempSync(join(tmpdir(), 'nlgate-cg-gw-'))];
  // BENCH_FLOOR=0: the gateway alone (comparing two trees, where the floor is the same for both).
  const floor = process.env.BENCH_FLOOR === '0' ? undefined : await startPlatformFloor(nginx.upstreamUrl, callgrindArgs(dirs[0]!), COUNTED_FLAGS);
  // No idle release: under valgrind a request takes 50 times as long, so the pause of a dump reads
  // as a quiet period, and one release's full collections counted in a window tripled its figure.
  const config = { ...profileConfig(nginx.upstreamUrl), server: { idleReleaseMs: 0 } };
  const verbose = Boolean(process.env.BENCH_VERBOSE);
  // In verbose mode V8 writes the map that names its JIT code (bench/lib/callgrind-js.ts).
  const gw = await startGateway(config, 1, { LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' }, [...npmStartFlags(), ...COUNTED_FLAGS, ...(verbose ? ['--perf-basic-prof'] : [])], callgrindArgs(dirs[1]!));
  const explain = (file: string, pid?: number) => {
    if (!verbose) return;
    console.log(topFunctions(file));
    if (pid) console.log(jsFunctions(file, `/tmp/perf-${pid}.map`, MEASURE));
  };
  try {
    console.log(`Node ${process.version}, callgrind: ${WARM} requests to warm up, then ${WINDOWS} windows of ${MEASURE} (${CONNECTIONS} connections)\n`);
    console.log('target  scenario     k instr/req    × floor  × nlweb-json   each window');
    let floorK: number | undefined;
    if (floor) {
      const floorSpec = { url: `${floor.url}/ask`, body: JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } }), headers: { 'content-type': 'application/json' } };
      const base = await countRequests(new Counted(floor.pid, dirs[0]!, process.env.HOST), floorSpec, PLAN);
      console.log(row('floor', 'nlweb-json', base.perRequest));
      explain(base.file);
      floorK = median(base.perRequest);
    }

    const counted = new Counted(gw.pid, dirs[1]!, '127.0.0.1');
    let passThrough: number | undefined;
    for (const scenario of scenarios) {
      const { perRequest, file } = await countRequests(counted, await specFor(scenario, gw.url), PLAN);
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
