/**
 * Streamable HTTP status codes of the MCP endpoint for 2025-era clients (interop.md "MCP"): 400 for
 * a missing session id or an unsupported MCP-Protocol-Version (never 404), 404 for an unknown or
 * terminated session, 405 with Allow, 406, 409 for a second GET stream, 413, 415, 403 for a bad
 * Origin/Host, 202 for notifications. Raw HTTP, so nothing in between tidies the wire up.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let url: string;
beforeAll(async () => {
  gw = await startGateway({
    server: { bodyLimitBytes: 4096, allowedHosts: ['127.0.0.1', 'localhost'], allowedOrigins: ['http://localhost:6274'] },
    agents: [{ name: 'recipes', kind: 'scripted' }],
  });
  url = `${gw.url}/mcp`;
});
afterAll(() => gw?.close());

const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const rpc = (method: string, params: object = {}, id: number | null = 1) => JSON.stringify({ jsonrpc: '2.0', ...(id !== null ? { id } : {}), method, params });
const INIT = rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });

async function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...JSON_AND_SSE, ...headers }, body });
}

async function session(): Promise<string> {
  const res = await post(INIT);
  expect(res.status).toBe(200);
  await res.body?.cancel();
  const id = res.headers.get('mcp-session-id');
  expect(id).toMatch(/^mcp_[A-Za-z0-9_-]{22}$/);
  return id!;
}

/** node:http, because fetch does not let a caller set Host or Origin. */
function rawPost(headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...JSON_AND_SSE, ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function errorOf(res: Response): Promise<{ code: number; message: string }> {
  const body = (await res.json()) as { jsonrpc: string; error: { code: number; message: string } };
  expect(body.jsonrpc).toBe('2.0');
  return body.error;
}

describe('MCP endpoint status codes (2025 Streamable HTTP)', () => {
  it('issues a session on initialize and answers a notification with 202', async () => {
    const id = await session();
    const res = await post(rpc('notifications/initialized', {}, null), { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });
    expect(res.status).toBe(202);
  });

  it('negotiates each 2025 revision it is offered, and the newest for an unknown one', async () => {
    for (const [offered, expected] of [['2025-11-25', '2025-11-25'], ['2025-06-18', '2025-06-18'], ['2025-03-26', '2025-03-26'], ['2031-01-01', '2025-11-25']]) {
      const res = await post(rpc('initialize', { protocolVersion: offered, capabilities: {}, clientInfo: { name: 'raw', version: '1' } }));
      const data = (await res.text()).split('\n').find((l) => l.startsWith('data: '))!;
      expect(JSON.parse(data.slice(6)).result.protocolVersion).toBe(expected);
    }
  });

  it('400 for a request without a session id, and for an unsupported MCP-Protocol-Version (not 404)', async () => {
    const missing = await post(rpc('tools/list'));
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).message).toMatch(/Mcp-Session-Id/);
    const id = await session();
    const badVersion = await post(rpc('tools/list'), { 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' });
    expect(badVersion.status).toBe(400);
    await badVersion.body?.cancel();
  });

  it('404 for an unknown session, and for a session ended with DELETE', async () => {
    const unknown = await post(rpc('tools/list'), { 'mcp-session-id': 'mcp_notarealsessionid000000' });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).message).toBe('Session not found');
    const id = await session();
    const del = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    expect(del.status).toBe(200);
    const after = await post(rpc('tools/list'), { 'mcp-session-id': id });
    expect(after.status).toBe(404);
    await after.body?.cancel();
  });

  it('405 with Allow for other methods', async () => {
    const res = await fetch(url, { method: 'PUT', headers: JSON_AND_SSE, body: INIT });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, DELETE');
    await res.body?.cancel();
  });

  it('406 when the client does not accept the response types', async () => {
    const res = await post(INIT, { accept: 'application/json' });
    expect(res.status).toBe(406);
    await res.body?.cancel();
    const id = await session();
    const get = await fetch(url, { headers: { accept: 'application/json', 'mcp-session-id': id } });
    expect(get.status).toBe(406);
    await get.body?.cancel();
  });

  it('409 for a second GET stream of one session', async () => {
    const id = await session();
    const first = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    const second = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } });
    expect(second.status).toBe(409);
    await second.body?.cancel();
    await first.body?.cancel();
  });

  it('413 for a body over the configured limit, 415 for a body that is not JSON', async () => {
    const big = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(5000) } }));
    expect(big.status).toBe(413);
    await big.body?.cancel();
    const text = await post('hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    await text.body?.cancel();
  });

  it('400 with a JSON-RPC parse error for a body that is not JSON (read once, from the socket), on both revisions', async () => {
    for (const headers of [{}, { 'mcp-protocol-version': '2026-07-28' }] as Array<Record<string, string>>) {
      const res = await post('{"jsonrpc":', headers);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    }
  });

  it('413 as a JSON-RPC error for a chunked body over the limit (no Content-Length to check)', async () => {
    const pad = 'x'.repeat(5000);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"${pad}`));
        controller.enqueue(new TextEncoder().encode('"}}'));
        controller.close();
      },
    });
    const res = await fetch(url, { method: 'POST', headers: JSON_AND_SSE, body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: -32000 } });
  });

  it('403 for a Host or Origin outside the allow-lists (DNS rebinding), and accepts the listed ones', async () => {
    expect(await rawPost({ host: 'evil.example.com' }, INIT)).toBe(403);
    expect(await rawPost({ origin: 'http://evil.example.com' }, INIT)).toBe(403);
    expect(await rawPost({ host: 'localhost', origin: 'http://localhost:6274' }, INIT)).toBe(200);
  });

  it('404 for an agent the path names but the config does not', async () => {
    const res = await fetch(`${gw.url}/agents/nobody/mcp`, { method: 'POST', headers: JSON_AND_SSE, body: INIT });
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });

  it('answers any malformed body with a JSON-RPC error, never a 5xx (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: v }))), async (body) => {
        const res = await post(body);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect((await errorOf(res)).code).toEqual(expect.any(Number));
        else await res.body?.cancel();
      }),
      { numRuns: 60 },
    );
  });
});
