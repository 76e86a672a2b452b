/**
 * `npm run bench:layers`: what each layer of nlgate costs on the NLWeb JSON pass-through, over real
 * HTTP. Apps built up a layer at a time serve the same static nginx upstream, each in a process of
 * its own, and wrk drives each (1 s warm-up, then BENCH_DURATION seconds, default 3) in BENCH_ROUNDS
 * interleaved rounds (default 5; the median is kept, so machine noise hits every layer alike).
 * Memory store. Layers:
 *
 *   floor      Hono + an undici Pool forwarding the body (bench/lib/platform-floor.ts)
 *   core       + the protocol core: a route that hands the parsed body to gateway.ask and answers JSON
 *   binding    + the NLWeb binding in place of that route (body limit, zod, the v0.55 renderer)
 *   edge       + request id, the edge (Host/Origin, content type, identity, the gateway-wide limit)
 *              and every other protocol's routes beside NLWeb's
 *   telemetry  + metrics, request states and the instrumented core and store: createApp, LOG_LEVEL=warn
 *   access log + the access log line (pino to /dev/null through the gateway's log destination): createApp as `nlgate serve` runs it
 *
 * and, only when named in BENCH_LAYERS, the steps from the floor to the core (json-ends, client,
 * adapter: bench/lib/core-steps.ts).
 *
 * Prints req/s and the CPU µs each request cost the serving process (/proc utime + stime, all its
 * threads, GC included) per layer, and what each layer adds. `BENCH_LAYERS=core,binding` runs only
 * those; `BENCH_PROFILE=1` keeps a `--cpu-prof` profile of each in bench/results/profiles/layers/.
 *
 * `BENCH_COUNT=1` counts instead of timing: each layer's process runs under valgrind's callgrind and
 * the figure is the thousands of instructions a request costs it (bench/lib/callgrind-count.ts, as
 * `npm run bench:instructions` counts; BENCH_WARM, BENCH_MEASURE and BENCH_WINDOWS as there). The
 * CPU time of a request moves up to six times between this VM's hours, a count by a few per cent,
 * so a layer's share can be compared across hours and trees. About two minutes a layer; with
 * BENCH_VERBOSE=1, each layer's JavaScript functions by the instructions they spent (and
 * BENCH_CALLEES, BENCH_CALLERS, BENCH_TOP as `npm run bench:instructions` reads them).
 * Not part of `npm test`; nothing asserts a timing.
 */
import { serve } from '@hono/node-server';
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { builtinAdapters } from '../adapters/index.ts';
import { createApp } from '../src/app.ts';
import { logDestination } from '../src/base/log-destination.ts';
import { createLogger, silentLogger, type Logger } from '../src/base/logger.ts';
import { builtinBindings } from '../src/bindings/index.ts';
import { nlwebHttpBinding } from '../src/bindings/nlweb-http/index.ts';
import { renderNlwebError } from '../src/bindings/nlweb-http/render/index.ts';
import type { ServerSettings } from '../src/bindings/types.ts';
import { parseConfig } from '../src/config/load.ts';
import { createGateway } from '../src/core/gateway.ts';
import type { Gateway } from '../src/core/gateway-types.ts';
import { newRequestId } from '../src/core/ids.ts';
import { createEdge, createVerifier } from '../src/edge/index.ts';
import { withRequestId } from '../src/edge/request-id.ts';
import type { AskRequest } from '../src/protocol/nlweb/index.ts';
import { MemoryStore } from '../src/store/memory.ts';
import { coreSteps } from './lib/core-steps.ts';
import { callgrindArgs, Counted, COUNTED_FLAGS, countPlanFromEnv, countRequests, jsFunctions, valgrindAvailable } from './lib/callgrind-count.ts';
import { spawnListening, type ListeningChild } from './lib/listening-child.ts';
import { startNginx } from './lib/nginx.ts';
import { floorApp } from './lib/platform-floor.ts';
import { median } from './lib/in-process.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BODY = '{"query":{"text":"pasta"},"prefer":{"streaming":false}}';
/** This file compiled by esbuild; beside the sources' parent so package imports resolve the same. */
const COMPILED = fileURLToPath(new URL('../dist/bench-layers.mjs', import.meta.url));
const PROFILES = fileURLToPath(new URL('../bench/results/profiles/layers/', import.meta.url));
const SCRIPT = join(tmpdir(), `nlgate-layers-${process.pid}.lua`);

interface Layer {
  app: Hono;
  close(): Promise<void>;
}

/** The same config `bench/run.ts` gives the gateway: one NLWeb agent, limits far above the load. */
function configFor(upstreamUrl: string) {
  return parseConfig(
    {
      defaults: { promiseAfterMs: 5000, leaseMs: 600_000 },
      limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 }, maxConnections: 100_000 },
      agents: [{ name: 'up', kind: 'nlweb', url: upstreamUrl, streaming: false }],
    },
    { adapters: builtinAdapters },
  ).config;
}

async function core(config: ReturnType<typeof configFor>, log: Logger): Promise<Gateway> {
  return createGateway({ agents: config.agents, adapters: builtinAdapters, defaults: config.defaults, limits: config.limits, upstreamLimits: config.limits, store: new MemoryStore(), log, baseDir: process.cwd() });
}

/**
 * The layers, each built when its turn comes: telemetry subscribes to the core's events process-wide
 * until closed. The core's steps (bench/lib/core-steps.ts) are `detail`: run only when named.
 */
function layers(upstreamUrl: string): Array<{ name: string; detail?: boolean; build(): Promise<Layer> }> {
  const config = configFor(upstreamUrl);
  const settings: ServerSettings = { bodyLimitBytes: config.server.bodyLimitBytes, allowedOrigins: [], allowedHosts: [], promiseTtlMs: config.defaults.promiseTtlMs, limits: config.limits, publicBase: () => '', identity: createVerifier(undefined) };
  const appWith = async (level: string): Promise<Layer> => {
    const built = await createApp(config, { log: createLogger(level, logDestination({ dest: '/dev/null' })) });
    return { app: built.app, close: () => built.close() };
  };
  return [
    { name: 'floor', build: async () => floorApp(upstreamUrl, '/agents/up') },
    ...coreSteps(upstreamUrl, config.agents[0]!).map((step) => ({ ...step, detail: true })),
    {
      name: 'core',
      build: async () => {
        const gateway = await core(config, silentLogger);
        const app = new Hono();
        app.post('/agents/up/ask', async (c) => c.json(await gateway.ask((await c.req.json()) as AskRequest, { agent: 'up', requestId: newRequestId() })));
        return { app, close: () => gateway.close() };
      },
    },
    {
      name: 'binding',
      build: async () => {
        const gateway = await core(config, silentLogger);
        const app = new Hono();
        app.route('/agents/:agent', nlwebHttpBinding.routes({ gateway, settings }));
        return { app, close: () => gateway.close() };
      },
    },
    {
      name: 'edge',
      build: async () => {
        const gateway = await core(config, silentLogger);
        const edge = createEdge({ server: config.server, limits: config.limits, auth: config.auth, bindings: builtinBindings, store: gateway.store, log: silentLogger, fallback: renderNlwebError });
        const app = new Hono();
        // The request id in the layer in front of it, as createApp gives it with the telemetry's.
        app.use('*', withRequestId(edge.middleware));
        // Every protocol's routes, mounted as createApp mounts them: the router is the app's own.
        const bound = { gateway, settings: { ...settings, publicBase: edge.publicBase, identity: edge.verifier } };
        for (const binding of builtinBindings) app.route('/', binding.routes(bound));
        for (const binding of builtinBindings.filter((b) => b.perAgent)) app.route('/agents/:agent', binding.routes(bound));
        return { app, close: () => gateway.close() };
      },
    },
    { name: 'telemetry', build: () => appWith('warn') },
    { name: 'access log', build: () => appWith('info') },
  ];
}

/** Child mode: builds one layer, serves it, prints its URL, and runs until killed. */
async function serveLayer(name: string, upstreamUrl: string): Promise<void> {
  const factory = layers(upstreamUrl).find((l) => l.name === name);
  if (!factory) throw new Error(`no layer ${name}`);
  const layer = await factory.build();
  const server = serve({ fetch: layer.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => console.log(`listening http://127.0.0.1:${info.port}`));
  process.on('SIGTERM', () => server.close(() => void layer.close().finally(() => process.exit(0))));
}

/** User + system CPU time of a process so far, in µs (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuUsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** One layer in a process of its own (so no layer inherits another's heap or JIT state); `wrap` runs node under valgrind. */
function startLayer(name: string, upstreamUrl: string, wrap: string[] = []): Promise<ListeningChild> {
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILES, name.replace(/ /g, '-'))}`] : [];
  // Counted: COUNTED_FLAGS, and with BENCH_VERBOSE the map that names V8's JIT code (jsFunctions).
  const counted = wrap.length > 0 ? [...COUNTED_FLAGS, ...(process.env.BENCH_VERBOSE ? ['--perf-basic-prof'] : [])] : [];
  const node = [...wrap, process.execPath, ...counted, ...profile, COMPILED];
  return spawnListening(PIN ? 'taskset' : node[0]!, PIN ? ['-c', '0', ...node] : node.slice(1), { env: { ...process.env, LAYER_SERVE: name, LAYER_UPSTREAM: upstreamUrl } });
}

/** wrk against `url` for `seconds`: requests/s, and the CPU µs process `pid` spent per request. */
async function drive(url: string, pid: number, seconds: number): Promise<{ rps: number; cpuUs: number }> {
  const before = cpuUsOf(pid);
  const out = await new Promise<string>((resolve, reject) => {
    const wrk = ['wrk', '-t2', '-c32', `-d${seconds}s`, '-s', SCRIPT, `${url}/agents/up/ask`];
    const p = spawn(PIN ? 'taskset' : 'wrk', PIN ? ['-c', '1', ...wrk] : wrk.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.on('data', (d: Buffer) => (text += d));
    p.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))));
  });
  const cpu = cpuUsOf(pid) - before;
  const requests = Number(out.match(/(\d+) requests in/)?.[1] ?? 0);
  const errors = out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1];
  if (errors) throw new Error(`${errors} failed responses from ${url}`);
  return { rps: Math.round(requests / seconds), cpuUs: requests ? cpu / requests : 0 };
}

/**
 * `BENCH_PIN=1` (taskset, two cores or more): the layer's process on core 0, wrk and nginx on core 1.
 * Off by default: on a 2-core machine the pinned load generator then limits every layer alike.
 */
const PIN = process.env.BENCH_PIN === '1' && availableParallelism() >= 2 && !spawnSync('taskset', ['-V']).error;

/** nginx's master and workers (this bench's and any other: they are only pinned). */
function nginxPids(): number[] {
  return (spawnSync('pgrep', ['-x', 'nginx'], { encoding: 'utf8' }).stdout ?? '').split('\n').map(Number).filter((n) => n > 0);
}

/** BENCH_COUNT=1: each layer under callgrind, thousands of instructions a request (median window) and what each adds. */
async function countLayers(names: string[], upstreamUrl: string): Promise<void> {
  if (!valgrindAvailable()) throw new Error('BENCH_COUNT=1 needs valgrind (apt-get install valgrind)');
  const plan = countPlanFromEnv();
  console.log(`Node ${process.version}, callgrind: ${plan.warm} requests to warm up, then ${plan.windows} windows of ${plan.measure}, median window\n`);
  console.log('layer        k instr/req     + k   each window');
  let prev = 0;
  for (const name of names) {
    const dir = mkdtempSync(join(tmpdir(), 'nlgate-cg-layer-'));
    const layer = await startLayer(name, upstreamUrl, callgrindArgs(dir));
    try {
      const request = { url: `${layer.url}/agents/up/ask`, body: BODY, headers: { 'content-type': 'application/json' } };
      const { perRequest, file } = await countRequests(new Counted(layer.pid, dir, process.env.HOST), request, plan);
      const k = median(perRequest);
      console.log(`${name.padEnd(11)} ${k.toFixed(1).padStart(12)}   ${prev ? `${k - prev >= 0 ? '+' : ''}${(k - prev).toFixed(1)}`.padStart(6) : '      '}   ${perRequest.map((x) => x.toFixed(1)).join(' ')}`);
      if (process.env.BENCH_VERBOSE) console.log(jsFunctions(file, `/tmp/perf-${layer.pid}.map`, plan.measure));
      prev = k;
    } finally {
      await layer.stop();
      rmSync(dir, { recursive: true, force: true });
      rmSync(`/tmp/perf-${layer.pid}.map`, { force: true });
    }
  }
}

async function main(): Promise<void> {
  if (process.env.LAYER_SERVE) return serveLayer(process.env.LAYER_SERVE, process.env.LAYER_UPSTREAM!);
  const counting = process.env.BENCH_COUNT === '1';
  if (!counting && spawnSync('wrk', ['--version']).error) throw new Error('bench/layers.ts needs wrk on PATH');
  // The layers run compiled, as `npm start` runs the gateway (tsx adds its own per-call costs).
  await build({ entryPoints: [fileURLToPath(import.meta.url)], outfile: COMPILED, bundle: true, platform: 'node', format: 'esm', packages: 'external', sourcemap: 'linked', logLevel: 'warning' });
  const nginx = await startNginx(1);
  if (PIN) for (const pid of nginxPids()) spawnSync('taskset', ['-p', '-c', '1', String(pid)], { stdio: 'ignore' });
  const only = process.env.BENCH_LAYERS?.split(',');
  const names = layers(nginx.upstreamUrl)
    .filter((l) => (only ? only.includes(l.name) : !l.detail))
    .map((l) => l.name);
  if (counting) {
    try {
      return await countLayers(names, nginx.upstreamUrl);
    } finally {
      await nginx.stop();
    }
  }
  writeFileSync(SCRIPT, `wrk.method="POST"\nwrk.body='${BODY}'\nwrk.headers["content-type"]="application/json"\n`);
  const runs = new Map<string, Array<{ rps: number; cpuUs: number }>>(names.map((n) => [n, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) {
        const layer = await startLayer(name, nginx.upstreamUrl);
        try {
          await drive(layer.url, layer.pid, 1);
          runs.get(name)!.push(await drive(layer.url, layer.pid, DURATION));
        } finally {
          await layer.stop();
        }
      }
    }
  } finally {
    await nginx.stop();
    rmSync(SCRIPT, { force: true });
  }
  console.log(`Node ${process.version}, ${ROUNDS} rounds of ${DURATION} s, median of each layer${PIN ? '; layer on core 0, wrk and nginx on core 1' : ''}\n`);
  console.log('layer        req/s   CPU µs/req   + µs');
  let prev = 0;
  for (const name of names) {
    const rps = median(runs.get(name)!.map((r) => r.rps));
    const cpuUs = median(runs.get(name)!.map((r) => r.cpuUs));
    const each = process.env.BENCH_VERBOSE ? `   (${runs.get(name)!.map((r) => r.cpuUs.toFixed(0)).join(' ')})` : '';
    console.log(`${name.padEnd(11)} ${String(rps).padStart(6)}   ${cpuUs.toFixed(0).padStart(10)}   ${prev ? `+${(cpuUs - prev).toFixed(0)}` : ''}${each}`);
    prev = cpuUs;
  }
  if (process.env.BENCH_PROFILE) console.log(`\nprofiles: ${PROFILES}<layer>/`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
