/**
 * Issue 11 "Limits that cannot be side-stepped", against real gateways on loopback: limits keyed
 * by verified principal, else by client address (127.0.0.1 and 127.0.0.2 are two clients), never
 * by a raw header; X-Forwarded-For believed only from trusted proxies; the gateway-wide limit on
 * every route, answered in each protocol's shape with Retry-After.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { ALICE_KEY, AUTH, BOB_KEY, fetchFrom, MCP_HEADERS, MCP_INIT, postJson } from './support.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const ask = (headers: Record<string, string> = {}, from = '127.0.0.1', agent = 'limited') =>
  postJson(`${gw!.url}/agents/${agent}/ask`, { query: { text: 'count:1' } }, headers, from).then((r) => r.status);

async function statuses(n: number, call: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await call());
  return out;
}

describe('per-agent limits', () => {
  it('regression "rate limits keyed by the raw header": rotating random credentials or X-Forwarded-For values does not escape the limit', async () => {
    gw = await startGateway({ agents: [{ name: 'limited', kind: 'scripted', rateLimit: { requests: 3, windowMs: 60_000 } }] });
    // No auth section: a credential is not an identity, so a fresh value each time is the same caller.
    const rotating = await statuses(5, () => ask({ authorization: `Bearer ${randomBytes(12).toString('hex')}`, 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250)}` }));
    expect(rotating).toEqual([200, 200, 200, 429, 429]);
  });

  it('with an auth section, a random credential is refused (401) instead of opening a new bucket', async () => {
    gw = await startGateway({ auth: AUTH, agents: [{ name: 'limited', kind: 'scripted', rateLimit: { requests: 1, windowMs: 60_000 } }] });
    expect(await ask()).toBe(200);
    expect(await ask()).toBe(429);
    expect(await statuses(3, () => ask({ authorization: `Bearer ${randomBytes(12).toString('hex')}` }))).toEqual([401, 401, 401]);
  });

  it('regression "all anonymous callers share one bucket": one address exhausting its bucket does not lock out another', async () => {
    gw = await startGateway({ agents: [{ name: 'limited', kind: 'scripted', rateLimit: { requests: 2, windowMs: 60_000 } }] });
    expect(await statuses(3, () => ask({}, '127.0.0.1'))).toEqual([200, 200, 429]);
    expect(await statuses(2, () => ask({}, '127.0.0.2'))).toEqual([200, 200]);
  });

  it('each verified principal has its own bucket, and a key\'s own rateLimit replaces the agent\'s', async () => {
    const auth = { apiKeys: [AUTH.apiKeys[0], { ...AUTH.apiKeys[1], agents: undefined, rateLimit: { requests: 4, windowMs: 60_000 } }] };
    gw = await startGateway({ auth, agents: [{ name: 'limited', kind: 'scripted', rateLimit: { requests: 1, windowMs: 60_000 } }] });
    expect(await statuses(2, () => ask({ authorization: `Bearer ${ALICE_KEY}` }))).toEqual([200, 429]);
    expect(await statuses(5, () => ask({ authorization: `Bearer ${BOB_KEY}` }))).toEqual([200, 200, 200, 200, 429]);
    // Both came from 127.0.0.1: the anonymous bucket of that address is untouched.
    expect(await ask()).toBe(200);
  });
});

describe('X-Forwarded-For', () => {
  it('is believed only from a trusted proxy (127.0.0.2), never from anyone else (127.0.0.1)', async () => {
    gw = await startGateway({
      server: { trustedProxies: ['127.0.0.2'] },
      agents: [{ name: 'limited', kind: 'scripted', rateLimit: { requests: 1, windowMs: 60_000 } }],
    });
    // Through the proxy: two different clients, two buckets.
    expect(await ask({ 'x-forwarded-for': '203.0.113.1' }, '127.0.0.2')).toBe(200);
    expect(await ask({ 'x-forwarded-for': '203.0.113.1' }, '127.0.0.2')).toBe(429);
    expect(await ask({ 'x-forwarded-for': '203.0.113.2' }, '127.0.0.2')).toBe(200);
    // Direct: the header is ignored, so naming another client does not help.
    expect(await ask({ 'x-forwarded-for': '203.0.113.3' }, '127.0.0.1')).toBe(200);
    expect(await ask({ 'x-forwarded-for': '203.0.113.4' }, '127.0.0.1')).toBe(429);
  });
});

describe('IPv6 clients (server.ipv6ClientPrefix)', () => {
  const through = (client: string) => ask({ 'x-forwarded-for': client }, '127.0.0.2');

  it('regression "an IPv6 client takes a new bucket with every address of its /64": rotating the low 64 bits does not escape the limit', async () => {
    gw = await startGateway({
      server: { trustedProxies: ['127.0.0.2'] },
      agents: [{ name: 'limited', kind: 'scripted', rateLimit: { requests: 2, windowMs: 60_000 } }],
    });
    const rotating = await statuses(4, () => through(`2001:db8:1:2:${randomBytes(8).toString('hex').match(/.{4}/g)!.join(':')}`));
    expect(rotating).toEqual([200, 200, 429, 429]);
    // Another /64 is another client.
    expect(await through('2001:db8:1:3::1')).toBe(200);
  });

  it('with ipv6ClientPrefix 128 every address is a client of its own', async () => {
    gw = await startGateway({
      server: { trustedProxies: ['127.0.0.2'], ipv6ClientPrefix: 128 },
      agents: [{ name: 'limited', kind: 'scripted', rateLimit: { requests: 1, windowMs: 60_000 } }],
    });
    let n = 0;
    expect(await statuses(3, () => through(`2001:db8:1:2::${++n}`))).toEqual([200, 200, 200]);
  });
});

describe('the gateway-wide limit (limits.gatewayRateLimit)', () => {
  it('covers metadata routes, /await, NLIP uploads and MCP initialize, with Retry-After in each protocol\'s shape', async () => {
    gw = await startGateway({ limits: { gatewayRateLimit: { requests: 6, windowMs: 60_000 } }, agents: [{ name: 'open', kind: 'scripted' }] });
    const get = fetchFrom('127.0.0.1');
    const url = gw.url;
    const form = new FormData();
    form.append('contents', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    const used = [
      (await get(`${url}/agents`)).status,
      (await get(`${url}/sites`)).status,
      (await get(`${url}/webtools/open`)).status,
      (await postJson(`${url}/await`, { promise_token: 'prm_unknown', action: 'checkin' })).status,
      (await get(`${url}/nlip/upload/`, { method: 'POST', body: form })).status,
      (await get(`${url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: MCP_INIT })).status,
    ];
    expect(used.every((s) => s < 400)).toBe(true);
    const refused = {
      agents: await get(`${url}/agents`),
      webtool: await get(`${url}/webtools/open`),
      await: await postJson(`${url}/await`, { promise_token: 'prm_unknown', action: 'checkin' }),
      mcp: await get(`${url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: MCP_INIT }),
      nlip: await postJson(`${url}/nlip/`, { format: 'text', subformat: 'english', content: 'hi' }),
    };
    for (const [name, res] of Object.entries(refused)) {
      expect(res.status, name).toBe(429);
      expect(Number(res.headers.get('retry-after')), name).toBeGreaterThan(0);
    }
    expect(await refused.agents.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(await refused.webtool.json()).toMatchObject({ status: 'error', error: { code: 'RATE_LIMIT' } });
    expect(await refused.mcp.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    expect(JSON.stringify(await refused.nlip.json())).toContain('RATE_LIMITED');
    // Another address still gets through; probes are never limited.
    expect((await fetchFrom('127.0.0.2')(`${url}/agents`)).status).toBe(200);
    expect((await get(`${url}/healthz`)).status).toBe(200);
  });
});

describe('failed credentials (issue 24, hole 1)', () => {
  const guess = () => ({ authorization: `Bearer ${randomBytes(12).toString('hex')}` });

  it('regression "failed credentials are not counted": an address over its gateway budget gets 429 for rotating invalid keys, not 401', async () => {
    gw = await startGateway({ auth: AUTH, limits: { gatewayRateLimit: { requests: 3, windowMs: 60_000 }, failedAuth: { attempts: 1000, windowMs: 60_000, blockMs: 60_000 } }, agents: [{ name: 'limited', kind: 'scripted' }] });
    expect(await statuses(3, () => ask())).toEqual([200, 200, 200]);
    const rotating = await statuses(20, () => ask(guess()));
    expect(rotating.filter((s) => s === 401)).toEqual([]);
    expect(new Set(rotating)).toEqual(new Set([429]));
  });

  it('past limits.failedAuth the address is blocked before verification, even for a valid key; other addresses are not', async () => {
    gw = await startGateway({ auth: AUTH, limits: { failedAuth: { attempts: 3, windowMs: 60_000, blockMs: 60_000 } }, agents: [{ name: 'limited', kind: 'scripted' }] });
    expect(await statuses(5, () => ask(guess()))).toEqual([401, 401, 401, 429, 429]);
    // Blocked: the guesser's address is not heard, whatever it sends next.
    expect(await ask({ authorization: `Bearer ${ALICE_KEY}` })).toBe(429);
    const blocked = await postJson(`${gw.url}/agents/limited/ask`, { query: { text: 'count:1' } }, { authorization: `Bearer ${ALICE_KEY}` });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address with a valid key is served; an anonymous request from the blocked one still is (no credential to check).
    expect(await ask({ authorization: `Bearer ${ALICE_KEY}` }, '127.0.0.2')).toBe(200);
    expect(await ask({}, '127.0.0.1')).toBe(200);
  });
});
