/**
 * `npx tsx bench/mcp-paths.ts`: the CPU each MCP path costs the gateway per `ask`, next to the NLWeb
 * pass-through, in one process (issue 25). Two apps with one config in front of the static nginx
 * upstream — the MCP fast paths (2026-07-28 and 2025 session) on, and off — are sent requests in-process (`app.request`, 16 at a
 * time, so no socket or load generator shares the measurement), in BENCH_ROUNDS interleaved rounds
 * (default 5) of BENCH_N requests (default 2000); the process's own CPU (user + system, GC
 * included) per request is taken per round and the median kept. The upstream's CPU is nginx's, not
 * counted. The result is the cost of the gateway's work per request, which bounds its throughput
 * when one worker is CPU-bound: `× pass-through` is `nlweb-json`'s µs over the row's.
 * BENCH_FILL=<n> first stores n other records in each app's store (a replica holding many sessions
 * and tasks). Not part of `npm test`; nothing asserts a timing.
 */
import { builtinAdapters } from '../adapters/index.ts';
import { createApp, type GatewayApp } from '../src/app.ts';
import { silentLogger } from '../src/base/logger.ts';
import { builtinBindings } from '../src/bindings/index.ts';
import { mcpHttpBindingWith } from '../src/bindings/mcp-http/index.ts';
import { parseConfig } from '../src/config/load.ts';
import { cpuPerRequest, median, type InProcessScenario } from './lib/in-process.ts';
import { startNginx } from './lib/nginx.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const N = Number(process.env.BENCH_N ?? 2000);
const CONCURRENCY = 16;
const FILL = Number(process.env.BENCH_FILL ?? 0);
const ASK = JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } });
const JSON_HEADERS = { 'content-type': 'application/json' };
const ACCEPT = { accept: 'application/json, text/event-stream' };
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
const ASK_2026 = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { query: { text: 'pasta' } }, _meta: ENVELOPE } });
const HEADERS_2026 = { ...JSON_HEADERS, ...ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ask' };
const ASK_2025 = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { query: { text: 'pasta' } } } });

type Scenario = InProcessScenario;

async function build(fastPath: boolean, upstream: string): Promise<GatewayApp> {
  const raw = {
    defaults: { promiseAfterMs: 5000, leaseMs: 600_000 },
    limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 } },
    agents: [{ name: 'up', kind: 'nlweb', url: upstream, streaming: false }],
  };
  const loaded = parseConfig(raw, { adapters: builtinAdapters, baseDir: process.cwd(), source: 'bench' });
  const bindings = builtinBindings.map((b) => (b.name === 'mcp-http' ? mcpHttpBindingWith({ fastPath }) : b));
  return createApp(loaded.config, { log: silentLogger, baseDir: loaded.baseDir, bindings });
}

/** An initialized 2025-11-25 session's headers on `app`. */
async function session(app: GatewayApp): Promise<Record<string, string>> {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  const res = await app.app.request('/agents/up/mcp', { method: 'POST', headers: { ...JSON_HEADERS, ...ACCEPT }, body: init });
  await res.text();
  const headers = { ...JSON_HEADERS, ...ACCEPT, 'mcp-session-id': res.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
  await (await app.app.request('/agents/up/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return headers;
}

const measure = (s: Scenario, n: number) => cpuPerRequest(s, n, CONCURRENCY);

async function main(): Promise<void> {
  const nginx = await startNginx(1);
  const fast = await build(true, nginx.upstreamUrl);
  const sdk = await build(false, nginx.upstreamUrl);
  for (const app of [fast, sdk]) for (let i = 0; i < FILL; i++) await app.gateway.store.putRecord('bench-fill', `record-${i}`, 'x', 3_600_000);
  try {
    const scenarios: Scenario[] = [
      { name: 'nlweb-json', app: fast, path: '/agents/up/ask', body: ASK, headers: JSON_HEADERS },
      { name: 'mcp-2026-ask fast path', app: fast, path: '/agents/up/mcp', body: ASK_2026, headers: HEADERS_2026 },
      { name: 'mcp-2026-ask SDK path', app: sdk, path: '/agents/up/mcp', body: ASK_2026, headers: HEADERS_2026 },
      { name: 'mcp-2025-session-ask fast path', app: fast, path: '/agents/up/mcp', body: ASK_2025, headers: await session(fast) },
      { name: 'mcp-2025-session-ask SDK path', app: sdk, path: '/agents/up/mcp', body: ASK_2025, headers: await session(sdk) },
    ];
    for (const s of scenarios) await measure(s, Math.min(N, 500)); // warm-up: JIT, pools, keep-alive sockets
    const runs = new Map(scenarios.map((s) => [s.name, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) for (const s of scenarios) runs.get(s.name)!.push(await measure(s, N));
    const base = median(runs.get('nlweb-json')!);
    console.log(`CPU µs per request, median of ${ROUNDS} interleaved rounds of ${N} (each round's in brackets)\n`);
    console.log('| scenario | CPU µs/req | × pass-through | rounds |\n|---|---|---|---|');
    for (const s of scenarios) {
      const m = median(runs.get(s.name)!);
      console.log(`| ${s.name} | ${m.toFixed(0)} | ${(base / m).toFixed(2)} | ${runs.get(s.name)!.map((x) => x.toFixed(0)).join(' ')} |`);
    }
  } finally {
    await Promise.all([fast.close(), sdk.close()]);
    await nginx.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
