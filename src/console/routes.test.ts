import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { GatewayConfigSchema } from '../config/schema.ts';
import type { Gateway } from '../core/gateway-types.ts';
import { upstreamChannels } from '../core/upstream-events.ts';
import { consoleEnabled, createConsole } from './index.ts';

const config = (extra: Record<string, unknown> = {}) =>
  GatewayConfigSchema.parse({ agents: [{ name: 'up', kind: 'nlip', url: 'http://127.0.0.1:9', headers: { 'X-Up-Key': 'k-1' } }], ...extra });

const gateway = { listAgents: () => [{ name: 'up', kind: 'nlip', description: 'an upstream' }], describeAgent: async () => ({ description: 'an upstream', sites: ['s'] }) } as unknown as Gateway;

/** An app like src/app.ts: request id, a stand-in edge setting the principal from `x-who`, the console, and a route that calls "upstream". */
function appWithConsole() {
  const con = createConsole(config(), gateway, (c) => new URL(c.req.url).origin);
  const app = new Hono();
  let n = 0;
  app.use('*', async (c, next) => {
    c.set('requestId', `req_${++n}`);
    c.header('X-Request-Id', `req_${n}`);
    c.set('principal', { id: `key:${c.req.header('x-who') ?? 'nobody'}`, name: 'x', verified: true });
    await next();
  });
  app.use('*', con.marker);
  app.route('/', con.routes);
  app.post('/call', (c) => {
    const exchange = { id: 1000 + n, requestId: c.get('requestId'), agent: 'up', method: 'POST', url: 'http://127.0.0.1:9/nlip/', headers: { 'x-up-key': 'k-1', 'content-type': 'application/json' }, body: '{"content":"hi"}', startedAt: 0 };
    upstreamChannels.request.publish(exchange);
    upstreamChannels.response.publish({ exchange, status: 200, headers: {} });
    upstreamChannels.chunk.publish({ exchange, chunk: '{"content":"hello"}' });
    upstreamChannels.end.publish({ exchange, bytes: 19, durationMs: 3 });
    return c.json({ ok: true });
  });
  return { app, con };
}

describe('console routes', () => {
  it('keeps the upstream wire of a marked call for the principal that made it, 404 for anyone else', async () => {
    const { app, con } = appWithConsole();
    const call = await app.request('/call', { method: 'POST', headers: { 'x-who': 'alice', 'x-nlgate-capture': '1' } });
    const id = call.headers.get('x-request-id')!;
    const mine = await app.request(`/console/api/wire/${id}`, { headers: { 'x-who': 'alice' } });
    expect(mine.status).toBe(200);
    const body = await mine.json();
    expect(body.exchanges[0]).toMatchObject({ agent: 'up', status: 200, responseBody: '{"content":"hello"}', requestHeaders: { 'x-up-key': '[redacted]' } });
    const theirs = await app.request(`/console/api/wire/${id}`, { headers: { 'x-who': 'mallory' } });
    expect(theirs.status).toBe(404);
    con.close();
  });

  it('keeps nothing for a call without the capture header', async () => {
    const { app, con } = appWithConsole();
    const call = await app.request('/call', { method: 'POST', headers: { 'x-who': 'alice' } });
    const res = await app.request(`/console/api/wire/${call.headers.get('x-request-id')}`, { headers: { 'x-who': 'alice' } });
    expect(res.status).toBe(404);
    expect(con.ring.size).toBe(0);
    con.close();
  });

  it('serves the page with a strict CSP and lists agents with endpoints', async () => {
    const { app, con } = appWithConsole();
    const page = await app.request('/console');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*script-src 'self'/);
    const agents = await (await app.request('http://gw.test/console/api/agents')).json();
    expect(agents.agents[0]).toMatchObject({ name: 'up', kind: 'nlip', sites: ['s'], inProcess: false, endpoints: { nlip: 'http://gw.test/agents/up/nlip/', mcp: 'http://gw.test/agents/up/mcp' } });
    con.close();
  });

  it('is on by default only on loopback; the switch turns it on or off', () => {
    expect(consoleEnabled(config())).toBe(true);
    expect(consoleEnabled(config({ server: { host: '0.0.0.0' } }))).toBe(false);
    expect(consoleEnabled(config({ server: { host: '0.0.0.0' }, console: { enabled: true } }))).toBe(true);
    expect(consoleEnabled(config({ console: { enabled: false } }))).toBe(false);
  });
});
