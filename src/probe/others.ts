/**
 * Probes for NLIP (ECMA-430 HTTP binding: `POST /nlip/`), MCP (Streamable HTTP `initialize`, and the
 * 2024-11-05 HTTP+SSE `endpoint` event) and webtools (draft 2025-06-30: `GET {webtoolUrl}` metadata).
 */
import { WebtoolMetadataSchema } from '../protocol/webtool/index.ts';
import { baseOf, isObject, jsonOf, probeRequest, sseData, type ProbeHttp } from './http.ts';
import type { Finding } from './finding.ts';

/** NLIP: a text message to `POST /nlip/` comes back as an NLIP message (`format` and `content`). */
export async function probeNlip(url: string, http: ProbeHttp): Promise<Finding | undefined> {
  const base = baseOf(url, ['/nlip']);
  const seen = await probeRequest(
    `${base}/nlip/`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ format: 'text', subformat: 'english', content: 'hello' }) },
    http,
  );
  const body = seen && jsonOf(seen.text);
  if (!isObject(body)) return undefined;
  const lower = Object.fromEntries(Object.entries(body).map(([k, v]) => [k.toLowerCase(), v]));
  if (typeof lower.format !== 'string' || lower.content === undefined) return undefined;
  return {
    protocol: 'NLIP (ECMA-430)',
    evidence: `POST ${base}/nlip/ answered an NLIP message (format "${lower.format}", HTTP ${seen!.status})`,
    agent: { kind: 'nlip', url: base },
  };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'nlgate-probe', version: '1' } },
};

/** MCP over Streamable HTTP: `initialize` answered with a JSON-RPC result naming a protocol version. */
export async function probeMcpHttp(url: string, http: ProbeHttp): Promise<Finding | undefined> {
  const trimmed = url.replace(/\/+$/, '');
  const candidates = new URL(trimmed).pathname.length > 1 ? [trimmed] : [`${trimmed}/mcp`, trimmed];
  for (const endpoint of candidates) {
    const seen = await probeRequest(
      endpoint,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(INITIALIZE) },
      http,
      { stopWhen: (text) => sseData(text).some((d) => isObject(d) && d.id === 1) },
    );
    if (!seen) continue;
    const messages = seen.contentType.includes('event-stream') ? sseData(seen.text) : [jsonOf(seen.text)];
    const reply = messages.find((m) => isObject(m) && m.jsonrpc === '2.0' && m.id === 1);
    const result = isObject(reply) && isObject(reply.result) ? reply.result : undefined;
    if (!result || typeof result.protocolVersion !== 'string') continue;
    // End the session the probe opened (2025 servers keep one per client) rather than leave it to expire.
    const session = seen.headers.get('mcp-session-id');
    if (session) await probeRequest(endpoint, { method: 'DELETE', headers: { 'mcp-session-id': session } }, http);
    const server = isObject(result.serverInfo) && typeof result.serverInfo.name === 'string' ? ` (server "${result.serverInfo.name}")` : '';
    return {
      protocol: 'MCP (Streamable HTTP)',
      evidence: `POST ${endpoint} initialize answered protocol ${result.protocolVersion}${server}`,
      agent: { kind: 'mcp', transport: 'streamable-http', url: endpoint },
    };
  }
  return undefined;
}

/** MCP over the 2024-11-05 HTTP+SSE transport: `GET` opens a stream whose first event is `endpoint`. */
export async function probeMcpSse(url: string, http: ProbeHttp): Promise<Finding | undefined> {
  const trimmed = url.replace(/\/+$/, '');
  const endpoint = trimmed.endsWith('/sse') ? trimmed : `${trimmed}/sse`;
  const seen = await probeRequest(endpoint, { method: 'GET', headers: { accept: 'text/event-stream' } }, http, {
    stopWhen: (text) => /event:\s*endpoint\r?\n(data:.*\r?\n)+/.test(text),
    readIf: (type) => type.includes('event-stream'),
  });
  if (!seen || seen.status !== 200 || !seen.contentType.includes('event-stream')) return undefined;
  if (!/event:\s*endpoint/.test(seen.text)) return undefined;
  return {
    protocol: 'MCP (HTTP+SSE, 2024-11-05)',
    evidence: `GET ${endpoint} opened an event stream whose first event is "endpoint"`,
    agent: { kind: 'mcp', transport: 'sse', url: endpoint },
  };
}

/** A webtool: `GET {url}` answers metadata (name, version, actions, configSchema, defaultConfig). */
export async function probeWebtool(url: string, http: ProbeHttp): Promise<Finding | undefined> {
  const trimmed = url.replace(/\/+$/, '');
  const seen = await probeRequest(trimmed, { method: 'GET', headers: { accept: 'application/json' } }, http, { readIf: (type) => type.includes('json') });
  if (!seen || seen.status !== 200 || !seen.contentType.includes('json')) return undefined;
  const metadata = WebtoolMetadataSchema.safeParse(jsonOf(seen.text));
  if (!metadata.success) return undefined;
  const actions = metadata.data.actions.map((a) => a.name);
  return {
    protocol: 'webtool',
    evidence: `GET ${trimmed} answered webtool metadata "${metadata.data.name}" ${metadata.data.version} (actions: ${actions.join(', ') || 'none'})`,
    agent: { kind: 'webtool', url: trimmed },
  };
}
