/**
 * `npm run bench:alloc [scenario]`: what a request allocates, by the function that allocates it. One
 * gateway (compiled dist/, `npm start`'s flags, memory store unless `BENCH_STORE=redis`) runs with the
 * inspector on loopback; V8's sampling heap profiler (HeapProfiler.startSampling, every
 * BENCH_ALLOC_INTERVAL bytes, default 1024, counting objects the collector has already freed) runs
 * while wrk drives the scenario for BENCH_DURATION seconds (default 5). It prints the bytes per
 * request in all and the top allocating frames (self, then inclusive), mapped through the bundle's
 * source maps. Scenarios as `npm run bench:profile`. The profile is kept in bench/results/profiles/
 * (`.heapprofile`, for Chrome DevTools' Memory panel).
 *
 * Why: a CPU profile shows the collector's time but not whose garbage it collects; the young
 * generation's scavenges are paid by every request in proportion to what it allocates.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { startRedis } from '../test/support/redis.ts';
import { heapSites, type SamplingProfile } from './lib/alloc-summary.ts';
import { npmStartFlags, startGateway } from './lib/gateway.ts';
import { drive } from './lib/load.ts';
import { startNginx } from './lib/nginx.ts';
import { profileConfig, specFor } from './lib/scenarios.ts';

const SCENARIO = process.argv[2] ?? 'nlweb-json';
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const INTERVAL = Number(process.env.BENCH_ALLOC_INTERVAL ?? 1024);
const TOP = Number(process.env.TOP ?? 30);
// BENCH_ALLOC_SURVIVORS=1: only what outlived the young generation (promoted to the old one, or still
// held), leaving out what a scavenge freed: whose objects the scavenges copy and the old generation grows by.
const SURVIVORS = process.env.BENCH_ALLOC_SURVIVORS === '1';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** A Chrome DevTools Protocol session on the inspector at `port` (the first target it lists). */
async function inspect(port: number): Promise<{ send(method: string, params?: object): Promise<unknown>; close(): void }> {
  let targets: Array<{ webSocketDebuggerUrl: string }> = [];
  for (let i = 0; i < 50 && !targets.length; i++) {
    targets = await fetch(`http://127.0.0.1:${port}/json/list`).then((r) => r.json() as Promise<typeof targets>).catch(() => []);
    if (!targets.length) await new Promise((r) => setTimeout(r, 100));
  }
  const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  const pending = new Map<number, (v: unknown) => void>();
  let next = 1;
  ws.onmessage = (e) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: unknown };
    if (msg.id === undefined) return;
    pending.get(msg.id)?.(msg.error ? Promise.reject(new Error(JSON.stringify(msg.error))) : msg.result);
    pending.delete(msg.id);
  };
  return {
    send: (method, params = {}) => new Promise((resolve) => { const id = next++; pending.set(id, resolve); ws.send(JSON.stringify({ id, method, params })); }),
    close: () => ws.close(),
  };
}

async function main(): Promise<void> {
  const dir = new URL('./results/profiles/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const nginx = await startNginx(1);
  const redis = process.env.BENCH_STORE === 'redis' ? await startRedis() : undefined;
  const port = await freePort();
  const gw = await startGateway(profileConfig(nginx.upstreamUrl, redis?.url), 1, { LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' }, [...npmStartFlags(), `--inspect=127.0.0.1:${port}`]);
  const cdp = await inspect(port);
  let profile: SamplingProfile;
  let requests: number;
  try {
    const spec = await specFor(SCENARIO, gw.url);
    await drive({ ...spec, connections: 32, durationS: 1 });
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.startSampling', { samplingInterval: INTERVAL, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !SURVIVORS });
    const r = await drive({ ...spec, connections: 32, durationS: DURATION });
    profile = ((await cdp.send('HeapProfiler.stopSampling')) as { profile: SamplingProfile }).profile;
    requests = Math.round(r.rps * DURATION);
    console.log(`${SCENARIO} (${gw.runner}${redis ? ', redis' : ', memory'}): ${r.rps} req/s errors ${r.errors}, ~${requests} requests sampled`);
  } finally {
    cdp.close();
    await gw.stop();
    await Promise.all([nginx.stop(), redis?.stop()]);
  }
  const file = `${dir}alloc-${SCENARIO}-${Date.now()}.heapprofile`;
  writeFileSync(file, JSON.stringify(profile));
  const sites = heapSites(profile);
  const perRequest = (bytes: number) => `${(bytes / requests).toFixed(0).padStart(7)} B`;
  console.log(`\nprofile: ${file}\nallocated per request: ${perRequest(sites.total).trim()}\n\nself\n${sites.self.slice(0, TOP).map(([k, v]) => `${perRequest(v)}  ${k}`).join('\n')}`);
  console.log(`\ninclusive\n${sites.inclusive.slice(0, TOP).map(([k, v]) => `${perRequest(v)}  ${k}`).join('\n')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
