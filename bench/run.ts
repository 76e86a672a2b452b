/**
 * `npm run bench` (docs/benchmarks.md): in one run, on the same static NLWeb upstream (nginx
 * `return 200`), the upstream direct, nginx `proxy_pass` in front of it, nlgate with the memory
 * store, nlgate with the Redis store, and `workers: auto` against nginx with as many workers.
 * Writes bench/results/<date>.json and bench/results/latest.json and prints a table. Never part
 * of `npm test`.
 *
 * Env: BENCH_DURATION (seconds per load run, default 5), BENCH_CONNECTIONS (default 32),
 * BENCH_SEQ_N (sequential requests, default 300), BENCH_QUICK=1 (2 s runs, 100 sequential),
 * BENCH_TOOL=autocannon (instead of wrk), BENCH_ONLY=<regex> (only the gateway scenarios whose name
 * matches, with `nlweb-json` for their pass-through ratio, and none of the other sections).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { startRedis } from '../test/support/redis.ts';
import { heapFigures, SETTLED_MS, startGateway, type BenchGateway } from './lib/gateway.ts';
import { drive, wrkAvailable, type LoadResult, type LoadSpec } from './lib/load.ts';
import { nginxAvailable, startNginx, type Nginx } from './lib/nginx.ts';
import { FIXTURE, startMcpProxy, toolCallSpec, type McpTarget } from './lib/mcp-compare.ts';
import { roundTripsPer } from './lib/redis-trips.ts';
import { sequential, sseTimes } from './lib/sequential.ts';
import { startNodeUpstream } from './lib/slow-upstream.ts';
import { startPlatformFloor, type Floor } from './lib/platform-floor.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const DURATION = Number(process.env.BENCH_DURATION ?? (QUICK ? 2 : 5));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SEQ_N = Number(process.env.BENCH_SEQ_N ?? (QUICK ? 100 : 300));
const JSON_HEADERS = { 'content-type': 'application/json' };
const ASK = JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } });
const FLOOR = 'hono+undici forwarder';
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;

interface Row extends LoadResult {
  scenario: string;
  target: string;
  rssMiB?: number;
  /** CPU the gateway process spent per request (its /proc utime + stime): steadier than req/s on a busy machine. */
  cpuUsPerReq?: number;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** An MCP session on the gateway (initialize + initialized), for `tools/call` runs. */
async function mcpSession(base: string): Promise<Record<string, string>> {
  const accept = { accept: 'application/json, text/event-stream' };
  const init = await post(`${base}/agents/up/mcp`, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }, accept);
  const session = init.headers.get('mcp-session-id');
  if (!session) throw new Error(`MCP initialize failed: ${init.status} ${init.text.slice(0, 200)}`);
  const headers = { ...accept, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await post(`${base}/agents/up/mcp`, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

/** The request specs of every gateway scenario, prepared against a running gateway. */
async function scenarios(gw: BenchGateway): Promise<Array<{ scenario: string; spec: Omit<LoadSpec, 'connections' | 'durationS'>; check: () => Promise<boolean> }>> {
  const base = gw.url;
  const first = JSON.parse((await post(`${base}/agents/up/ask`, ASK)).text);
  const secondTurn = JSON.stringify({ query: { text: 'and vegetarian?' }, prefer: { streaming: false }, meta: { session_context: first._meta.session_context } });
  const promised = JSON.parse((await post(`${base}/agents/promised/ask`, ASK)).text);
  const token = promised.promise?.token as string | undefined;
  if (!token) throw new Error(`no promise: ${JSON.stringify(promised).slice(0, 200)}`);
  await post(`${base}/await`, { promise_token: token, action: 'checkin', wait_ms: 5000 });
  const checkin = JSON.stringify({ promise_token: token, action: 'checkin' });
  const mcpHeaders = await mcpSession(base);
  const mcpCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { query: { text: 'pasta' } } } });
  // MCP 2026-07-28: no session; the request carries its revision and capabilities in `_meta`, and its method and tool in headers (SEP-2243).
  const mcp2026Headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ask' };
  const mcp2026Call = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'ask', arguments: { query: { text: 'pasta' } }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } } },
  });
  const webtoolVersion = JSON.parse(await (await fetch(`${base}/webtools/up`)).text()).version as string;
  const webtool = JSON.stringify({ version: webtoolVersion, action: 'ask', request: { query: { text: 'pasta' } } });
  const nlip = JSON.stringify({ format: 'text', subformat: 'english', content: 'pasta' });
  const a2a = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'bench-1', role: 'ROLE_USER', parts: [{ text: 'pasta' }] } } });
  const a2aHeaders = { 'a2a-version': '1.0' };
  const ok = (url: string, body: string, headers: Record<string, string> = {}, expect = 'Pasta 3') => async () => {
    const r = await post(url, body, headers);
    return r.status === 200 && r.text.includes(expect);
  };
  return [
    { scenario: 'nlweb-json', spec: { url: `${base}/agents/up/ask`, body: ASK, headers: JSON_HEADERS }, check: ok(`${base}/agents/up/ask`, ASK) },
    { scenario: 'nlweb-sse', spec: { url: `${base}/agents/upsse/ask`, body: JSON.stringify({ query: { text: 'pasta' } }), headers: { ...JSON_HEADERS, accept: 'text/event-stream' } }, check: ok(`${base}/agents/upsse/ask`, JSON.stringify({ query: { text: 'pasta' } }), { accept: 'text/event-stream' }) },
    { scenario: 'nlip->nlweb', spec: { url: `${base}/agents/up/nlip/`, body: nlip, headers: JSON_HEADERS }, check: ok(`${base}/agents/up/nlip/`, nlip) },
    { scenario: 'mcp-tools/call-ask->nlweb', spec: { url: `${base}/agents/up/mcp`, body: mcpCall, headers: { ...JSON_HEADERS, ...mcpHeaders } }, check: ok(`${base}/agents/up/mcp`, mcpCall, mcpHeaders) },
    { scenario: 'mcp-2026-ask->nlweb', spec: { url: `${base}/agents/up/mcp`, body: mcp2026Call, headers: { ...JSON_HEADERS, ...mcp2026Headers } }, check: ok(`${base}/agents/up/mcp`, mcp2026Call, mcp2026Headers) },
    { scenario: 'a2a-send->nlweb', spec: { url: `${base}/a2a/up`, body: a2a, headers: { ...JSON_HEADERS, ...a2aHeaders } }, check: ok(`${base}/a2a/up`, a2a, a2aHeaders) },
    { scenario: 'webtool-execute->nlweb', spec: { url: `${base}/webtools/up`, body: webtool, headers: JSON_HEADERS }, check: ok(`${base}/webtools/up`, webtool) },
    { scenario: 'await-checkin', spec: { url: `${base}/await`, body: checkin, headers: JSON_HEADERS }, check: ok(`${base}/await`, checkin) },
    { scenario: 'second-turn', spec: { url: `${base}/agents/up/ask`, body: secondTurn, headers: JSON_HEADERS }, check: ok(`${base}/agents/up/ask`, secondTurn) },
  ];
}

/**
 * Measures the chosen scenarios of one gateway. Every one warms before any is measured: the first
 * measured would otherwise run on the coldest code and the youngest heap (a full run measured
 * `nlweb-json`, every ratio's pass-through, first: 480-545 CPU µs per request against 270-350 once
 * warm, which flattered every other ratio; issue 25). Each scenario's state (its conversation,
 * promise, MCP session) is made again just before it is measured: under the warm-up's load the
 * store's caps recycle the oldest records and conversations, as they should.
 */
async function measureScenarios(target: string, gw: BenchGateway, chosen: (name: string) => boolean): Promise<Row[]> {
  const warm = (await scenarios(gw)).filter((s) => chosen(s.scenario));
  for (const s of warm) await drive({ ...s.spec, connections: CONNECTIONS, durationS: 2 });
  const rows: Row[] = [];
  for (const { scenario } of warm) {
    const s = (await scenarios(gw)).find((x) => x.scenario === scenario)!;
    if (!(await s.check())) throw new Error(`${s.scenario} on ${target} does not answer as expected`);
    rows.push(await load(s.scenario, target, s.spec, gw));
  }
  return rows;
}

async function load(scenario: string, target: string, spec: Omit<LoadSpec, 'connections' | 'durationS'>, gw?: BenchGateway, connections = CONNECTIONS): Promise<Row> {
  await drive({ ...spec, connections, durationS: 1 }); // warm-up: JIT, pools, keep-alive sockets
  const cpuBefore = gw?.cpuUs() ?? 0;
  const result = await drive({ ...spec, connections, durationS: DURATION });
  const cpuUsPerReq = gw && result.rps > 0 ? Math.round((gw.cpuUs() - cpuBefore) / (result.rps * DURATION)) : undefined;
  const row: Row = { scenario, target, ...result, ...(gw ? { rssMiB: gw.rssMiB() } : {}), ...(cpuUsPerReq !== undefined ? { cpuUsPerReq } : {}) };
  console.log(`  ${scenario.padEnd(28)} ${target.padEnd(22)} ${String(row.rps).padStart(7)} req/s  p50 ${row.p50Ms} ms  p99 ${row.p99Ms} ms${row.errors ? `  errors ${row.errors}` : ''}${row.rssMiB ? `  rss ${row.rssMiB} MiB` : ''}${cpuUsPerReq ? `  cpu ${cpuUsPerReq} µs/req` : ''}`);
  return row;
}

async function main(): Promise<void> {
  const cores = availableParallelism();
  const haveNginx = nginxAvailable();
  console.log(`nlgate bench: ${DURATION} s per run, ${CONNECTIONS} connections, load by ${wrkAvailable() && process.env.BENCH_TOOL !== 'autocannon' ? 'wrk' : 'autocannon'}, ${cores} cores`);
  if (!haveNginx) console.log('nginx is not installed: the upstream is a Node server and there is no nginx row (apt-get install nginx)');
  const nginx1: Nginx | undefined = haveNginx ? await startNginx(1) : undefined;
  const nodeUpstream = haveNginx ? undefined : await startNodeUpstream();
  const upstreamUrl = nginx1?.upstreamUrl ?? nodeUpstream!.url;
  const slow = await startNodeUpstream(200);
  const redis = await startRedis();
  // Long leases: the sweeper must not run during the measurement (it would add its own commands).
  const defaults = { promiseAfterMs: 5000, leaseMs: 600_000 };
  const agents = [
    { name: 'up', kind: 'nlweb', url: upstreamUrl, streaming: false },
    { name: 'upsse', kind: 'nlweb', url: `${upstreamUrl}/sse`, streaming: true },
    { name: 'promised', kind: 'nlweb', url: slow.url, streaming: false, promiseAfterMs: 20 },
    { name: 'mcpfix', kind: 'mcp', command: FIXTURE.command, args: FIXTURE.args },
  ];
  const redisStore = { kind: 'redis', url: redis.url, prefix: 'bench:' };
  // The load comes from one address: the gateway-wide rate limit would measure itself.
  const limits = { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 }, maxConnections: 100_000 };
  const rows: Row[] = [];
  const extra: Record<string, unknown> = {};
  let mem: BenchGateway | undefined;
  let red: BenchGateway | undefined;
  let many: BenchGateway | undefined;
  let nginxMany: Nginx | undefined;
  let proxy: McpTarget | undefined;
  let floor: Floor | undefined;
  try {
    mem = await startGateway({ defaults, limits, agents });
    red = await startGateway({ defaults, limits, agents, store: redisStore });
    console.log(`gateway runner: ${mem.runner}`);
    const askSpec = (url: string) => ({ url: `${url}/ask`, body: ASK, headers: JSON_HEADERS });

    console.log('\nthroughput');
    if (ONLY) {
      // Only the chosen gateway scenarios, each beside its pass-through (nlweb-json on the same gateway).
      for (const [target, gw] of [['nlgate memory', mem], ['nlgate redis', red]] as const) {
        rows.push(...(await measureScenarios(target, gw, (name) => name === 'nlweb-json' || ONLY.test(name))));
      }
      return report(rows, cores, haveNginx, extra);
    }
    rows.push(await load('nlweb-json', 'upstream direct', askSpec(upstreamUrl)));
    if (nginx1) rows.push(await load('nlweb-json', 'nginx proxy_pass', askSpec(nginx1.proxyUrl)));
    // The platform floor: the least a Node gateway on this stack can cost (bench/lib/platform-floor.ts).
    floor = await startPlatformFloor(upstreamUrl);
    rows.push(await load('nlweb-json', FLOOR, askSpec(floor.url)));
    const gateways = [['nlgate memory', mem], ['nlgate redis', red]] as const;
    for (const [target, gw] of gateways) {
      rows.push(...(await measureScenarios(target, gw, () => true)));
      // What the memory is after the gateway's scenarios: RSS against V8's live heap and what it reserves.
      const heap = await heapFigures(gw);
      extra[`memoryAfterScenarios:${target}`] = heap;
      console.log(`  ${target} after its scenarios: ${JSON.stringify(heap)}`);
    }
    // And once the load has stopped: a replica gives its spare heap back at its next quiet look.
    await new Promise((r) => setTimeout(r, SETTLED_MS));
    for (const [target, gw] of gateways) {
      const heap = await heapFigures(gw);
      extra[`memoryOnceQuiet:${target}`] = heap;
      console.log(`  ${target} ${SETTLED_MS / 1000} s after: ${JSON.stringify(heap)}`);
    }

    console.log('\nMCP tools/call to one stdio MCP server: through nlgate and through mcp-proxy');
    proxy = await startMcpProxy();
    const viaProxy = await toolCallSpec(proxy.url);
    rows.push(await load('mcp-tools/call', 'mcp-proxy', { url: proxy.url, ...viaProxy }));
    const viaGateway = await toolCallSpec(`${mem.url}/agents/mcpfix/mcp`);
    rows.push(await load('mcp-tools/call', 'nlgate memory', { url: `${mem.url}/agents/mcpfix/mcp`, ...viaGateway }, mem));
    await proxy.stop();
    proxy = undefined;

    console.log('\nsequential (1 connection)');
    const seq = {
      direct: await sequential({ url: `${upstreamUrl}/ask`, body: ASK, n: SEQ_N }),
      ...(nginx1 ? { nginx: await sequential({ url: `${nginx1.proxyUrl}/ask`, body: ASK, n: SEQ_N }) } : {}),
      platformFloor: await sequential({ url: `${floor.url}/ask`, body: ASK, n: SEQ_N }),
      nlgateMemory: await sequential({ url: `${mem.url}/agents/up/ask`, body: ASK, n: SEQ_N }),
      nlgateRedis: await sequential({ url: `${red.url}/agents/up/ask`, body: ASK, n: SEQ_N }),
    };
    const added = (x: { p50Ms: number; p99Ms: number }) => ({ p50Ms: round(x.p50Ms - seq.direct.p50Ms), p99Ms: round(x.p99Ms - seq.direct.p99Ms) });
    extra.sequential = { ...seq, addedOverDirect: { platformFloor: added(seq.platformFloor), nlgateMemory: added(seq.nlgateMemory), nlgateRedis: added(seq.nlgateRedis) } };
    await floor.stop();
    floor = undefined;
    for (const [k, v] of Object.entries(seq)) console.log(`  ${k.padEnd(14)} p50 ${v.p50Ms} ms  p99 ${v.p99Ms} ms`);

    console.log('\nSSE, one stream at a time (time to first result / to the end)');
    const sseBody = JSON.stringify({ query: { text: 'pasta' } });
    extra.sse = {
      direct: await sseTimes({ url: `${upstreamUrl}/sse/ask`, body: sseBody, n: SEQ_N }),
      nlgateMemory: await sseTimes({ url: `${mem.url}/agents/upsse/ask`, body: sseBody, n: SEQ_N }),
    };
    for (const [k, v] of Object.entries(extra.sse as Record<string, { firstEvent: { p50Ms: number }; lastEvent: { p50Ms: number } }>)) {
      console.log(`  ${k.padEnd(14)} first p50 ${v.firstEvent.p50Ms} ms  last p50 ${v.lastEvent.p50Ms} ms`);
    }

    console.log('\nRedis round trips per call');
    const gwUrl = red.url;
    const first = JSON.parse((await post(`${gwUrl}/agents/up/ask`, ASK)).text);
    const turn2 = JSON.stringify({ query: { text: 'more' }, prefer: { streaming: false }, meta: { session_context: first._meta.session_context } });
    extra.redisRoundTrips = {
      newConversation: await roundTripsPer(redis.url, 100, () => post(`${gwUrl}/agents/up/ask`, ASK)),
      continuedConversation: await roundTripsPer(redis.url, 100, () => post(`${gwUrl}/agents/up/ask`, turn2)),
    };
    for (const [k, v] of Object.entries(extra.redisRoundTrips as Record<string, { perCall: number; byCommand: object }>)) console.log(`  ${k}: ${v.perCall} ${JSON.stringify(v.byCommand)}`);
    await mem.stop();
    mem = undefined;

    console.log(`\nworkers: auto (${cores}) with Redis against nginx with ${cores} workers`);
    await red.stop();
    red = undefined;
    many = await startGateway({ defaults, limits, agents, store: redisStore, server: { workers: 'auto' } }, cores);
    if (haveNginx) {
      nginxMany = await startNginx(cores);
      rows.push(await load('nlweb-json', `nginx x${cores}`, askSpec(nginxMany.proxyUrl)));
    }
    rows.push(await load('nlweb-json', `nlgate redis x${cores}`, { url: `${many.url}/agents/up/ask`, body: ASK, headers: JSON_HEADERS }, many));
  } finally {
    await Promise.all([mem?.stop(), red?.stop(), many?.stop(), nginxMany?.stop(), proxy?.stop(), floor?.stop()]);
    await Promise.all([nginx1?.stop(), nodeUpstream?.close(), slow.close(), redis.stop()]);
  }

  report(rows, cores, haveNginx, extra);
}

/** The ratios of every row, written to bench/results and printed as a table. */
function report(rows: Row[], cores: number, haveNginx: boolean, extra: Record<string, unknown>): void {
  const find = (scenario: string, target: string) => rows.find((r) => r.scenario === scenario && r.target === target);
  const nginxRps = find('nlweb-json', 'nginx proxy_pass')?.rps;
  const floorRps = find('nlweb-json', FLOOR)?.rps;
  const ratios = rows.map((r) => {
    const passThrough = r.scenario === 'mcp-tools/call' ? find('mcp-tools/call', 'mcp-proxy')?.rps : find('nlweb-json', r.target)?.rps;
    const nginxSame = r.target.includes(' x') ? find('nlweb-json', `nginx x${cores}`)?.rps : nginxRps;
    const toFloor = floorRps && r.target.startsWith('nlgate') && !r.target.includes(' x') && r.scenario !== 'mcp-tools/call' ? round(r.rps / floorRps) : null;
    // The same ratio by CPU per request (pass-through's CPU / this one's): what throughput would be on a CPU-bound worker, less moved by other load on the machine.
    const passThroughCpu = r.scenario === 'mcp-tools/call' ? undefined : find('nlweb-json', r.target)?.cpuUsPerReq;
    const cpuToPassThrough = passThroughCpu && r.cpuUsPerReq ? round(passThroughCpu / r.cpuUsPerReq) : null;
    return { ...r, toNginx: nginxSame ? round(r.rps / nginxSame) : null, toPassThrough: passThrough ? round(r.rps / passThrough) : null, toFloor, cpuToPassThrough };
  });
  const result = { when: new Date().toISOString(), node: process.version, cores, durationS: DURATION, connections: CONNECTIONS, nginx: haveNginx, rows: ratios, ...extra };
  const dir = new URL('./results/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const text = JSON.stringify(result, null, 2) + '\n';
  // A BENCH_ONLY run is a part of the bench: it never stands in for the whole one in latest.json.
  writeFileSync(`${dir}${result.when.slice(0, 19).replace(/:/g, '-')}${ONLY ? '-only' : ''}.json`, text);
  if (!ONLY) writeFileSync(`${dir}latest.json`, text);
  console.log('\n| scenario | target | req/s | p50 ms | p99 ms | × nginx | × pass-through | × floor | RSS MiB | CPU µs/req | × pass-through by CPU |\n|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of ratios) {
    console.log(`| ${r.scenario} | ${r.target} | ${r.rps} | ${r.p50Ms} | ${r.p99Ms} | ${r.toNginx ?? ''} | ${r.toPassThrough ?? ''} | ${r.toFloor ?? ''} | ${r.rssMiB ?? ''} | ${r.cpuUsPerReq ?? ''} | ${r.cpuToPassThrough ?? ''} |`);
  }
  console.log(`\nwritten to bench/results/${ONLY ? `${result.when.slice(0, 19).replace(/:/g, '-')}-only.json` : 'latest.json'}`);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
