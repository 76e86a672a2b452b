/**
 * `npx tsx bench/store-trips.ts` (issue 25): the Redis commands one call sends, per path, counted
 * with MONITOR (bench/lib/redis-trips.ts): an NLWeb ask that starts a conversation and one that
 * continues it, and the alias paths (NLIP new and with the peer's own token, MCP 2025 session and
 * 2026, webtool, A2A). `npm run bench`
 * prints the first two; this prints every path and which script each EVALSHA ran. Runs the compiled
 * `dist/cli.js` when there is one (`npm run build`), else the sources.
 */
import { startRedis } from '../test/support/redis.ts';
import { startGateway } from './lib/gateway.ts';
import { roundTripsPer } from './lib/redis-trips.ts';
import { startNodeUpstream } from './lib/slow-upstream.ts';

const N = Number(process.env.TRIPS_N ?? 100);
const JSON_HEADERS = { 'content-type': 'application/json' };
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Posts and fails loudly on anything but 200: a count of a failing path would measure nothing. */
async function ok(url: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const r = await post(url, body, headers);
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.text;
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const upstream = await startNodeUpstream();
  const gw = await startGateway({
    defaults: { promiseAfterMs: 5000, leaseMs: 600_000 },
    limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 }, maxConnections: 100_000 },
    agents: [{ name: 'up', kind: 'nlweb', url: upstream.url, streaming: false }],
    store: { kind: 'redis', url: redis.url, prefix: 'trips:' },
  });
  try {
    const base = gw.url;
    const ask = { query: { text: 'pasta' }, prefer: { streaming: false } };
    const first = JSON.parse(await ok(`${base}/agents/up/ask`, ask));
    const second = { ...ask, meta: { session_context: first._meta.session_context } };

    const init = await post(`${base}/agents/up/mcp`, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'trips', version: '1' } } }, MCP_ACCEPT);
    const mcpSession = { ...MCP_ACCEPT, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await post(`${base}/agents/up/mcp`, { jsonrpc: '2.0', method: 'notifications/initialized' }, mcpSession);
    const mcpCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { query: { text: 'pasta' } } } };
    const mcp2026Headers = { ...MCP_ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ask' };
    const meta2026 = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'trips', version: '1' } };
    const mcp2026 = { ...mcpCall, params: { ...mcpCall.params, _meta: meta2026 } };
    const webtoolVersion = JSON.parse(await (await fetch(`${base}/webtools/up`)).text()).version as string;
    const webtool = { version: webtoolVersion, action: 'ask', request: { query: { text: 'pasta' } } };
    // A client-chosen sessionId continues one conversation (an alias record to it).
    const withSession = { ...webtool, sessionId: 'trips-session-0123456789' };
    const nlip = { format: 'text', subformat: 'english', content: 'pasta' };
    // A peer that keeps its own conversation token (mapped to a gateway conversation by an alias).
    const nlipOwnToken = { ...nlip, submessages: [{ format: 'token', subformat: 'conversation', content: 'trips-peer-token-0123456789' }] };
    const a2a = (id: string) => ({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: id, role: 'ROLE_USER', parts: [{ text: 'pasta' }] } } });
    let a2aN = 0;

    const paths: Array<[string, () => Promise<unknown>]> = [
      ['nlweb new conversation', () => ok(`${base}/agents/up/ask`, ask)],
      ['nlweb continued conversation', () => ok(`${base}/agents/up/ask`, second)],
      ['nlip (new)', () => ok(`${base}/agents/up/nlip/`, nlip)],
      ['nlip (its own token again)', () => ok(`${base}/agents/up/nlip/`, nlipOwnToken)],
      ['mcp 2025 session tools/call', () => ok(`${base}/agents/up/mcp`, mcpCall, mcpSession)],
      ['mcp 2026 tools/call', () => ok(`${base}/agents/up/mcp`, mcp2026, mcp2026Headers)],
      ['webtool (new)', () => ok(`${base}/webtools/up`, webtool)],
      ['webtool (its sessionId again)', () => ok(`${base}/webtools/up`, withSession)],
      ['a2a SendMessage (new)', () => ok(`${base}/a2a/up`, a2a(`m${a2aN++}`), { 'a2a-version': '1.0' })],
    ];
    console.log(`Redis commands per call (MONITOR, ${N} calls each; ${gw.runner})`);
    for (const [name, call] of paths) {
      const { perCall, byCommand } = await roundTripsPer(redis.url, N, call, { prefix: 'trips:' });
      const detail = Object.entries(byCommand).map(([k, v]) => `${k} ${Math.round(v * 100) / 100}`).join(', ');
      console.log(`  ${name.padEnd(30)} ${String(Math.round(perCall * 100) / 100).padStart(5)}  (${detail})`);
    }
  } finally {
    await gw.stop();
    await upstream.close();
    await redis.stop();
  }
}

await main();
