/**
 * `npm run bench:footprint` (issue 23): what one sidecar replica costs, each figure beside its target.
 * - image: the layers over the Node base (`docker build` of the checkout), when a daemon answers;
 * - start: process start to the first `/healthz` answer, compiled, embedded default (median of runs);
 * - idle RSS: one replica (`WORKERS=1`, embedded default) 2 s and 12 s after it listens (after its
 *   first idle look, which gives start-up's spare heap back: src/runtime/idle-release.ts);
 * - RSS after load: 2 s and 12 s after `FOOTPRINT_ASKS` (75,000) anonymous first-turn asks, memory
 *   store, with the CPU each ask cost the replica.
 * Start, idle and load are measured twice: as `npm start` runs the bundle (its V8 flags) and as the
 * image runs it (the `ENV` lines of the Dockerfile: NODE_OPTIONS with its V8 heap flags, the malloc
 * threshold), read from the Dockerfile itself so the figures follow what ships.
 * Writes bench/results/footprint.json. Build first (`npm run build`); the script runs dist/cli.js.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { cpuUsOf, npmStartFlags, SETTLED_MS } from './lib/gateway.ts';
import { firstTurnAsks } from './lib/load.ts';
import { median } from './lib/in-process.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const RUNS = Number(process.env.FOOTPRINT_RUNS ?? 5);
const ASKS = Number(process.env.FOOTPRINT_ASKS ?? 75_000);
const MiB = 1024 * 1024;

const statusMiB = (pid: number, field: string) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`))![1]) / 1024;
const rssMiB = (pid: number) => statusMiB(pid, 'VmRSS');
/**
 * The private part of RSS (`RssAnon`: the V8 heap, malloc): what each more replica costs. The rest is
 * mostly the pages of the node binary itself (`RssFile`), shared by every process of the same image.
 */
const anonMiB = (pid: number) => statusMiB(pid, 'RssAnon');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `node dist/cli.js serve` (the embedded default, or `config`); resolves at its first /healthz answer. */
function startReplica(env: Record<string, string>, flags: string[], config?: string): Promise<{ url: string; pid: number; startMs: number; stop(): void }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...flags, 'dist/cli.js', 'serve', ...(config ? ['--config', config] : [])], {
      cwd: ROOT,
      env: { ...process.env, ...env, PORT: '0', NLGATE_CONFIG: '', WORKERS: '1' },
      stdio: ['ignore', 'pipe', 'inherit'], // stdout is read to the end: the access log must not fill the pipe
    });
    let out = '';
    let found = false;
    child.stdout!.on('data', async (d: Buffer) => {
      if (found) return;
      out += d;
      const m = out.match(/"url":"([^"]+)"/);
      if (!m) return;
      found = true;
      const res = await fetch(`${m[1]}/healthz`);
      if (!res.ok) return reject(new Error(`healthz ${res.status}`));
      resolve({ url: m[1]!, pid: child.pid!, startMs: performance.now() - t0, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => !found && reject(new Error(`gateway exited ${code}: ${out}`)));
  });
}

/** The image's layers over its base, in MiB, or why it was not measured. */
function imageOverBase(): number | string {
  if (spawnSync('docker', ['info'], { stdio: 'ignore' }).status !== 0) return 'no Docker daemon';
  const tag = `nlgate:footprint-${process.pid}`;
  const built = spawnSync('docker', ['build', '--network', 'host', '-q', '-t', tag, '.'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) return `docker build failed: ${built.stderr.slice(-200)}`;
  const size = (image: string) => Number(spawnSync('docker', ['image', 'inspect', image, '--format', '{{.Size}}'], { encoding: 'utf8' }).stdout.trim());
  const base = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').match(/^ARG NODE_IMAGE=(\S+)$/m)![1]!;
  const over = (size(tag) - size(base)) / MiB;
  spawnSync('docker', ['image', 'rm', '-f', tag], { stdio: 'ignore' });
  return over;
}

/** The environment the image gives node (`ENV NODE_OPTIONS=...`, `ENV MALLOC_...=...` in the Dockerfile). */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const env: Record<string, string> = {};
  for (const [, name, value] of dockerfile.matchAll(/^ENV (NODE_OPTIONS|MALLOC_\w+)=(.*)$/gm)) env[name!] = value!.replace(/^"(.*)"$/, '$1');
  return env;
}

/** Start, idle RSS and RSS after the load of one way of running the bundle. */
async function measure(env: Record<string, string>, flags: string[] = []) {
  const starts: number[] = [];
  const idle: number[] = [];
  const idleAnon: number[] = [];
  const settled: number[] = [];
  const settledAnon: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const replica = await startReplica(env, flags);
    starts.push(replica.startMs);
    await sleep(2000);
    idle.push(rssMiB(replica.pid));
    idleAnon.push(anonMiB(replica.pid));
    // Past the first idle look (server.idleReleaseMs): start-up's spare heap given back.
    await sleep(SETTLED_MS - 2000);
    settled.push(rssMiB(replica.pid));
    settledAnon.push(anonMiB(replica.pid));
    replica.stop();
    await sleep(200);
  }
  // Load: first-turn asks, each minting a conversation that never comes back. The embedded default
  // with the gateway-wide rate limit lifted (every ask comes from one loopback address).
  const lifted = join(ROOT, 'config', `.footprint-${process.pid}.yaml`);
  const defaults = parse(readFileSync(join(ROOT, 'config/gateway.yaml'), 'utf8')) as Record<string, unknown>;
  // FOOTPRINT_MAX_CONVERSATIONS: the memory store's cap, to see what the conversations themselves hold.
  const cap = process.env.FOOTPRINT_MAX_CONVERSATIONS ? { store: { kind: 'memory', maxConversations: Number(process.env.FOOTPRINT_MAX_CONVERSATIONS) } } : {};
  writeFileSync(lifted, stringify({ ...defaults, ...cap, limits: { gatewayRateLimit: { requests: 10_000_000, windowMs: 60_000 } } }));
  const loaded = await startReplica(env, flags, lifted).finally(() => rmSync(lifted, { force: true }));
  const cpuBefore = cpuUsOf(loaded.pid);
  const asksPerS = await firstTurnAsks(loaded.url, ASKS);
  const cpuPerAskUs = Math.round((cpuUsOf(loaded.pid) - cpuBefore) / ASKS);
  await sleep(2000);
  const afterLoad = rssMiB(loaded.pid);
  const afterLoadAnon = anonMiB(loaded.pid);
  await sleep(SETTLED_MS - 2000);
  const quiet = rssMiB(loaded.pid);
  const quietAnon = anonMiB(loaded.pid);
  loaded.stop();
  return {
    env,
    starts,
    idle,
    settled,
    start: median(starts),
    idleRss: median(idle),
    idleAnon: median(idleAnon),
    settledRss: median(settled),
    settledAnon: median(settledAnon),
    afterLoad,
    afterLoadAnon,
    quiet,
    quietAnon,
    cpuPerAskUs,
    asksPerS,
  };
}

const asNpmStart = await measure({}, npmStartFlags());
const asImage = await measure(imageEnv());
const image = process.env.FOOTPRINT_IMAGE === '0' ? 'not measured (FOOTPRINT_IMAGE=0)' : imageOverBase();
const rows = [
  { measure: 'image layers over the Node base (MiB)', value: image, target: 40 as number | undefined },
  ...([['npm start', asNpmStart], ['as the image runs it', asImage]] as const).flatMap(([how, m]) => [
    { measure: `idle RSS, one replica, 2 s after it listens (MiB), ${how}`, value: m.idleRss, target: 70 },
    { measure: `idle RSS, one replica, ${SETTLED_MS / 1000} s after it listens (MiB), ${how}`, value: m.settledRss, target: 70 },
    { measure: `RSS 2 s after ${ASKS} anonymous asks (MiB), ${how}`, value: m.afterLoad, target: 150 },
    { measure: `RSS ${SETTLED_MS / 1000} s after them (MiB), ${how}`, value: m.quiet, target: 150 },
    { measure: `start to first /healthz (ms), ${how}`, value: m.start, target: 300 },
    { measure: `CPU per ask under that load (µs), ${how}`, value: m.cpuPerAskUs, target: undefined },
    { measure: `private memory (RssAnon) idle at 2 / ${SETTLED_MS / 1000} s, after the load at 2 / ${SETTLED_MS / 1000} s (MiB), ${how}`, value: `${m.idleAnon.toFixed(1)} / ${m.settledAnon.toFixed(1)}, ${m.afterLoadAnon.toFixed(1)} / ${m.quietAnon.toFixed(1)}`, target: undefined },
  ]),
];
const fmt = (v: number | string) => (typeof v === 'number' ? v.toFixed(v < 1000 ? 1 : 0) : v);
console.log(`Node ${process.version}, ${RUNS} runs\n`);
console.log('| measure | now | target | |\n|---|---|---|---|');
for (const r of rows) console.log(`| ${r.measure} | ${fmt(r.value)} | ${r.target === undefined ? '' : `≤ ${r.target}`} | ${typeof r.value === 'number' && r.target !== undefined ? (r.value <= r.target ? 'met' : 'missed') : ''} |`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/footprint.json'), JSON.stringify({ date: new Date().toISOString(), node: process.version, runs: RUNS, asks: ASKS, rows, npmStart: asNpmStart, image: asImage }, null, 2) + '\n');
