/**
 * `npm run bench:profile [scenario]`: one gateway (compiled dist/, memory store unless
 * `BENCH_STORE=redis`) under `node --cpu-prof`, driven by wrk for BENCH_DURATION seconds (default 5)
 * on one scenario against the static nginx upstream, then the profile's top frames by self and by
 * inclusive time. The profile is kept in bench/results/profiles/ for Chrome DevTools.
 * Scenarios: nlweb-json (default), nlweb-sse, nlip, mcp (a 2025-11-25 session), mcp-2026 (stateless
 * 2026-07-28), a2a (A2A 1.0 JSON-RPC SendMessage), webtool, second-turn.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startRedis } from '../test/support/redis.ts';
import { startGateway } from './lib/gateway.ts';
import { drive } from './lib/load.ts';
import { startNginx } from './lib/nginx.ts';
import { inclusiveFrames, topFrames } from './lib/profile-summary.ts';

const SCENARIO = process.argv[2] ?? 'nlweb-json';
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ASK = JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } });
const JSON_HEADERS = { 'content-type': 'application/json' };

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body });
}

/** The request wrk repeats for `scenario`, prepared against the gateway at `base`. */
async function specFor(scenario: string, base: string): Promise<{ url: string; body: string; headers: Record<string, string> }> {
  switch (scenario) {
    case 'nlweb-json':
      return { url: `${base}/agents/up/ask`, body: ASK, headers: JSON_HEADERS };
    case 'nlweb-sse':
      return { url: `${base}/agents/upsse/ask`, body: JSON.stringify({ query: { text: 'pasta' } }), headers: { ...JSON_HEADERS, accept: 'text/event-stream' } };
    case 'nlip':
      return { url: `${base}/agents/up/nlip/`, body: JSON.stringify({ format: 'text', subformat: 'english', content: 'pasta' }), headers: JSON_HEADERS };
    case 'a2a': {
      const message = { messageId: 'bench-1', role: 'ROLE_USER', parts: [{ text: 'pasta' }] };
      return { url: `${base}/a2a/up`, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }), headers: { ...JSON_HEADERS, 'a2a-version': '1.0' } };
    }
    case 'second-turn': {
      const first = (await (await post(`${base}/agents/up/ask`, ASK)).json()) as { _meta: { session_context: unknown } };
      return { url: `${base}/agents/up/ask`, body: JSON.stringify({ query: { text: 'more' }, prefer: { streaming: false }, meta: { session_context: first._meta.session_context } }), headers: JSON_HEADERS };
    }
    case 'webtool': {
      const version = ((await (await fetch(`${base}/webtools/up`)).json()) as { version: string }).version;
      return { url: `${base}/webtools/up`, body: JSON.stringify({ version, action: 'ask', request: { query: { text: 'pasta' } } }), headers: JSON_HEADERS };
    }
    case 'mcp': {
      const accept = { accept: 'application/json, text/event-stream' };
      const init = await post(`${base}/agents/up/mcp`, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }), accept);
      const headers = { ...JSON_HEADERS, ...accept, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
      await post(`${base}/agents/up/mcp`, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
      return { url: `${base}/agents/up/mcp`, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { query: { text: 'pasta' } } } }), headers };
    }
    case 'mcp-2026': {
      // No session: the revision and capabilities ride in `_meta`, the method and tool in headers (SEP-2243).
      const headers = { ...JSON_HEADERS, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ask' };
      const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
      return { url: `${base}/agents/up/mcp`, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { query: { text: 'pasta' } }, _meta } }), headers };
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

async function main(): Promise<void> {
  const dir = new URL('./results/profiles/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const before = new Set(readdirSync(dir));
  const nginx = await startNginx(1);
  const redis = process.env.BENCH_STORE === 'redis' ? await startRedis() : undefined;
  const agents = [
    { name: 'up', kind: 'nlweb', url: nginx.upstreamUrl, streaming: false },
    { name: 'upsse', kind: 'nlweb', url: `${nginx.upstreamUrl}/sse`, streaming: true },
  ];
  const config = {
    defaults: { promiseAfterMs: 5000, leaseMs: 600_000 },
    limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 }, maxConnections: 100_000 },
    agents,
    ...(redis ? { store: { kind: 'redis', url: redis.url, prefix: 'bench:' } } : {}),
  };
  const gw = await startGateway(config, 1, process.env.LOG_LEVEL ? { LOG_LEVEL: process.env.LOG_LEVEL } : {}, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  try {
    const spec = await specFor(SCENARIO, gw.url);
    await drive({ ...spec, connections: 32, durationS: 1 });
    const r = await drive({ ...spec, connections: 32, durationS: DURATION });
    console.log(`${SCENARIO} (${gw.runner}${redis ? ', redis' : ', memory'}): ${r.rps} req/s p50 ${r.p50Ms} ms p99 ${r.p99Ms} ms errors ${r.errors}`);
  } finally {
    await gw.stop();
    await Promise.all([nginx.stop(), redis?.stop()]);
  }
  const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const path = join(dir, file);
  console.log(`\nprofile: ${path}\n\nself time\n${topFrames(path, Number(process.env.TOP ?? 30)).join('\n')}`);
  console.log(`\ninclusive\n${inclusiveFrames(path, Number(process.env.TOP ?? 40)).join('\n')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
