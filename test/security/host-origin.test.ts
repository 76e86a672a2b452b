/**
 * Issue 11 "Host and Origin on every route": on loopback the checks are on by default and compare
 * ports; JSON routes refuse bodies not declared as JSON (415), so a cross-site "simple" POST cannot
 * go through; published URLs never reflect an unchecked Host header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { MCP_INIT, rawRequest } from './support.ts';

let gw: TestGateway;
let port: number;
beforeAll(async () => {
  gw = await startGateway({ agents: [{ name: 'open', kind: 'scripted' }] });
  port = Number(new URL(gw.url).port);
});
afterAll(() => gw?.close());

const ASK = JSON.stringify({ query: { text: 'count:1' } });
/** Every route family, with a body that route accepts when declared as JSON. */
const ROUTES: Array<{ method: string; path: string; body?: string; json?: boolean }> = [
  { method: 'POST', path: '/ask', body: ASK, json: true },
  { method: 'POST', path: '/agents/open/ask', body: ASK, json: true },
  { method: 'POST', path: '/await', body: JSON.stringify({ promise_token: 'prm_x', action: 'checkin' }), json: true },
  { method: 'GET', path: '/ask?query=x' },
  { method: 'GET', path: '/sites' },
  { method: 'GET', path: '/agents' },
  { method: 'GET', path: '/webtools' },
  { method: 'GET', path: '/webtools/open' },
  { method: 'POST', path: '/webtools/open', body: JSON.stringify({ action: 'ask', request: { query: { text: 'x' } } }), json: true },
  { method: 'POST', path: '/nlip/', body: JSON.stringify({ format: 'text', subformat: 'english', content: 'hi' }), json: true },
  { method: 'POST', path: '/mcp', body: MCP_INIT, json: true },
];

const send = (r: (typeof ROUTES)[number], headers: Record<string, string>) =>
  rawRequest(`${gw.url}${r.path}`, {
    method: r.method,
    headers: { accept: 'application/json, text/event-stream', ...(r.body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(r.body ? { body: r.body } : {}),
  });

describe('Host and Origin (loopback default, port-aware)', () => {
  it.each(ROUTES)('$method $path: a foreign Host, a loopback Host on another port, or a foreign Origin is 403; same origin passes', async (r) => {
    expect((await send(r, { host: `evil.example:${port}` })).status).toBe(403);
    expect((await send(r, { host: `localhost:${port + 1}` })).status).toBe(403);
    // Regression (issue 11): the Origin check ignored the port.
    expect((await send(r, { host: `localhost:${port}`, origin: `http://localhost:${port + 1}` })).status).toBe(403);
    expect((await send(r, { host: `localhost:${port}`, origin: 'https://evil.example' })).status).toBe(403);
    const ok = await send(r, { host: `localhost:${port}`, origin: `http://localhost:${port}` });
    expect(ok.status).toBeLessThan(400);
  });

  it('a refusal comes in the route\'s protocol shape', async () => {
    const mcp = await send(ROUTES.find((r) => r.path === '/mcp')!, { host: 'evil.example' });
    expect(JSON.parse(mcp.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32003 } });
    const webtool = await send(ROUTES.find((r) => r.path === '/webtools/open' && r.method === 'POST')!, { host: 'evil.example' });
    expect(JSON.parse(webtool.text)).toMatchObject({ status: 'error' });
    const ask = await send(ROUTES[0]!, { host: 'evil.example' });
    expect(JSON.parse(ask.text)).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'FORBIDDEN' } });
  });
});

describe('JSON routes refuse bodies not declared as JSON (415)', () => {
  it.each(ROUTES.filter((r) => r.json))('regression "a cross-site simple POST goes through": text/plain to $path is 415', async (r) => {
    const res = await send(r, { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(res.text)).not.toThrow();
  });
});

describe('published URLs', () => {
  it('regression "the Host header is reflected into published URLs": without publicUrl and off loopback, links use the listen address', async () => {
    const open = await startGateway({ server: { host: '0.0.0.0' }, agents: [{ name: 'open', kind: 'scripted' }] });
    try {
      const res = await rawRequest(`${open.url}/webtools`, { headers: { host: 'evil.example' } });
      expect(res.status).toBe(200);
      const { webtools } = JSON.parse(res.text) as { webtools: Array<{ url: string }> };
      expect(webtools[0]!.url).toBe(`${open.url}/webtools/open`);
      expect(res.text).not.toContain('evil.example');
    } finally {
      await open.close();
    }
  });
});
