/**
 * `npx tsx bench/a2a-paths.ts`: the CPU an A2A `SendMessage` (JSON-RPC and HTTP+JSON) and an NLIP
 * message cost the gateway per request, next to the NLWeb pass-through, in one process (issue 25).
 * As bench/mcp-paths.ts: one app in front of the static nginx upstream, requests sent in-process
 * (`app.request`, 16 at a time), BENCH_ROUNDS interleaved rounds (default 5) of BENCH_N requests
 * (default 2000), the process's own CPU (user + system, GC included) per request taken per round
 * and the median kept; `× pass-through` is `nlweb-json`'s µs over the row's, and beside it the median
 * of each round's own ratio. Interleaved rounds, because a single row moves up to 2× between runs on
 * a shared machine; two warm-up passes, because the first rounds ran 20-60% dearer after one.
 * Not part of `npm test`; nothing asserts a timing.
 */
import { builtinAdapters } from '../adapters/index.ts';
import { createApp, type GatewayApp } from '../src/app.ts';
import { silentLogger } from '../src/base/logger.ts';
import { parseConfig } from '../src/config/load.ts';
import { cpuPerRequest, median } from './lib/in-process.ts';
import { startNginx } from './lib/nginx.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const N = Number(process.env.BENCH_N ?? 2000);
const CONCURRENCY = 16;
const JSON_HEADERS = { 'content-type': 'application/json' };
const A2A_HEADERS = { ...JSON_HEADERS, 'a2a-version': '1.0' };
const MESSAGE = { messageId: 'bench-1', role: 'ROLE_USER', parts: [{ text: 'pasta' }] };

interface Scenario {
  name: string;
  path: string;
  body: string;
  headers: Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  { name: 'nlweb-json', path: '/agents/up/ask', body: JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } }), headers: JSON_HEADERS },
  { name: 'a2a SendMessage (JSON-RPC)', path: '/a2a/up', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: MESSAGE } }), headers: A2A_HEADERS },
  { name: 'a2a message:send (HTTP+JSON)', path: '/a2a/up/rest/message:send', body: JSON.stringify({ message: MESSAGE }), headers: A2A_HEADERS },
  { name: 'nlip', path: '/agents/up/nlip/', body: JSON.stringify({ format: 'text', subformat: 'english', content: 'pasta' }), headers: JSON_HEADERS },
];

async function build(upstream: string): Promise<GatewayApp> {
  const raw = {
    defaults: { promiseAfterMs: 5000, leaseMs: 600_000 },
    limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 } },
    agents: [{ name: 'up', kind: 'nlweb', url: upstream, streaming: false }],
  };
  const loaded = parseConfig(raw, { adapters: builtinAdapters, baseDir: process.cwd(), source: 'bench' });
  return createApp(loaded.config, { log: silentLogger, baseDir: loaded.baseDir });
}

const measure = (app: GatewayApp, s: Scenario, n: number) => cpuPerRequest({ ...s, app }, n, CONCURRENCY);

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
  const scenarios = SCENARIOS.filter((s) => s.name === 'nlweb-json' || !only || only.test(s.name));
  const nginx = await startNginx(1);
  const app = await build(nginx.upstreamUrl);
  try {
    for (let i = 0; i < 2; i++) for (const s of scenarios) await measure(app, s, N); // warm-up: JIT, pools, keep-alive sockets, the A2A SDK's lazy load
    const runs = new Map(scenarios.map((s) => [s.name, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) for (const s of scenarios) runs.get(s.name)!.push(await measure(app, s, N));
    const base = median(runs.get('nlweb-json')!);
    const baseRuns = runs.get('nlweb-json')!;
    console.log(`CPU µs per request, median of ${ROUNDS} interleaved rounds of ${N} (each round's in brackets); the last column is the`);
    console.log('median of each round\'s own ratio to nlweb-json, which the machine\'s drift between rounds moves less\n');
    console.log('| scenario | CPU µs/req | × pass-through | rounds | × pass-through, per round |\n|---|---|---|---|---|');
    for (const s of scenarios) {
      const xs = runs.get(s.name)!;
      const m = median(xs);
      const paired = median(xs.map((x, i) => baseRuns[i]! / x));
      console.log(`| ${s.name} | ${m.toFixed(0)} | ${(base / m).toFixed(2)} | ${xs.map((x) => x.toFixed(0)).join(' ')} | ${paired.toFixed(2)} |`);
    }
  } finally {
    await app.close();
    await nginx.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
