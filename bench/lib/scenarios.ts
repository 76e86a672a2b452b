/**
 * The requests the profiling benches repeat (`bench:profile`, `bench:alloc`), one per scenario, each
 * prepared against a running gateway (an MCP session initialised, a webtool's version read…).
 */
const ASK = JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } });
const JSON_HEADERS = { 'content-type': 'application/json' };

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body });
}

/** The request wrk repeats for `scenario`, prepared against the gateway at `base`. */
export async function specFor(scenario: string, base: string): Promise<{ url: string; body: string; headers: Record<string, string> }> {
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

/** The gateway config the profiling benches run: the static upstream as `up` (JSON) and `upsse` (SSE). */
export function profileConfig(upstreamUrl: string, redisUrl?: string): Record<string, unknown> {
  return {
    defaults: { promiseAfterMs: 5000, leaseMs: 600_000 },
    limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 }, maxConnections: 100_000 },
    agents: [
      { name: 'up', kind: 'nlweb', url: upstreamUrl, streaming: false },
      { name: 'upsse', kind: 'nlweb', url: `${upstreamUrl}/sse`, streaming: true },
    ],
    ...(redisUrl ? { store: { kind: 'redis', url: redisUrl, prefix: 'bench:' } } : {}),
  };
}
