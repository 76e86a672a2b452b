/**
 * Regression (issue 11, "Upstream redirects are followed anywhere"): every HTTP adapter shares one
 * redirect policy. A 302/307 to another origin never reaches it (a canary records any request), the
 * call fails with UPSTREAM_ERROR naming the agent and not the target, and a same-origin redirect is
 * followed with the configured headers and the body (307) intact.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { loadAdapters } from '../../src/core/agent.ts';
import type { Agent, CallContext } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { MAX_REDIRECTS } from '../../src/core/upstream/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startCanary, startScripted, type RecordingServer, type Reply, type SeenRequest } from '../upstream/servers.ts';

const SECRET = 'gateway-secret-8c1f';
const ANSWER = readFileSync(new URL('../fixtures/nlweb-v055/b1-answer.response.json', import.meta.url), 'utf8');

let canary: RecordingServer;
let upstream: RecordingServer;
let route: (req: SeenRequest) => Reply = () => ({ status: 500, body: '{}' });
const agents: Agent[] = [];

beforeAll(async () => {
  canary = await startCanary();
  upstream = await startScripted((req) => route(req));
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close?.()));
  canary.seen.length = 0;
  upstream.seen.length = 0;
});
afterAll(async () => {
  await Promise.all([canary?.close(), upstream?.close()]);
});

/** An agent of `kind` built the way the gateway builds one (config parsed by its adapter). */
function build(kind: string, raw: Record<string, unknown>): Agent {
  const factory = builtinAdapters.find((a) => a.kind === kind)!;
  const config = factory.configSchema.parse(raw) as Record<string, unknown>;
  const agent = factory.create({ ...config, name: `up-${kind}`, kind, timeoutMs: 10_000 }, { log: silentLogger, baseDir: '.' });
  agents.push(agent);
  return agent;
}

// Every kind built by hand here: the lazy kinds (mcp, a2a) load their implementation first, as the gateway does.
beforeAll(() => loadAdapters(builtinAdapters, builtinAdapters));
const ctx = (): CallContext => ({ signal: AbortSignal.timeout(15_000), requestId: 'req-redirect', log: silentLogger });
async function drain(events: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of events) out.push(e);
  return out;
}
async function failure(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}
const ask = { query: { text: 'spicy soup' } } as never;

/** One operation per adapter kind that makes it call its upstream. */
const KINDS: Array<{ kind: string; label: string; raw: () => Record<string, unknown>; call: (a: Agent) => Promise<unknown> }> = [
  { kind: 'nlweb', label: 'POST /ask', raw: () => ({ url: upstream.url, streaming: false, headers: { 'x-api-key': SECRET } }), call: (a) => drain(a.ask(ask, ctx())) },
  { kind: 'nlweb-legacy', label: 'GET /ask', raw: () => ({ url: upstream.url, sites: ['all'], headers: { 'x-api-key': SECRET } }), call: (a) => drain(a.ask(ask, ctx())) },
  { kind: 'nlweb-legacy', label: 'POST /ask', raw: () => ({ url: upstream.url, sites: ['all'], method: 'POST', generation: 'C', headers: { 'x-api-key': SECRET } }), call: (a) => drain(a.ask(ask, ctx())) },
  { kind: 'webtool', label: 'GET metadata', raw: () => ({ url: `${upstream.url}/tool`, headers: { 'x-api-key': SECRET } }), call: (a) => a.describe() },
  { kind: 'nlip', label: 'POST /nlip/', raw: () => ({ url: upstream.url, headers: { 'x-api-key': SECRET } }), call: (a) => drain(a.ask(ask, ctx())) },
  { kind: 'mcp', label: 'POST initialize', raw: () => ({ url: `${upstream.url}/mcp`, headers: { 'x-api-key': SECRET }, restart: { maxAttempts: 0, backoffMs: 1 } }), call: (a) => drain(a.ask(ask, ctx())) },
];

describe('a redirect to another origin is never followed, by any adapter', () => {
  for (const status of [302, 307]) {
    for (const { kind, label, raw, call } of KINDS) {
      it(`${kind} (${label}): HTTP ${status} to the canary fails with UPSTREAM_ERROR and the canary sees nothing`, async () => {
        route = () => ({ redirect: status, location: `${canary.url}/steal?from=${kind}` });
        const err = await failure(call(build(kind, raw())));
        expect(err.code).toBe('UPSTREAM_ERROR');
        expect(err.message).toContain(`up-${kind}`);
        expect(err.message).not.toContain(canary.url);
        expect(err.message).not.toContain(String(canary.port));
        expect(canary.seen).toEqual([]);
        expect(upstream.seen.length).toBeGreaterThan(0);
      });
    }
  }

  it('a redirect to the same host on another port is another origin', async () => {
    const sameHost = canary.url.replace('127.0.0.1', 'localhost');
    route = () => ({ redirect: 307, location: `${sameHost}/ask` });
    const err = await failure(drain(build('nlweb', KINDS[0]!.raw()).ask(ask, ctx())));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(canary.seen).toEqual([]);
  });

  it('a same-origin location carrying user-info is refused (it would smuggle credentials)', async () => {
    route = () => ({ redirect: 307, location: `http://user:pw@127.0.0.1:${upstream.port}/v2/ask` });
    const err = await failure(drain(build('nlweb', KINDS[0]!.raw()).ask(ask, ctx())));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(upstream.seen).toHaveLength(1);
  });
});

describe('a same-origin redirect is followed', () => {
  it('307 keeps the method, the body and the configured headers', async () => {
    route = (req) => (req.url === '/ask' ? { redirect: 307, location: '/v2/ask' } : { body: ANSWER });
    const events = (await drain(build('nlweb', KINDS[0]!.raw()).ask(ask, ctx()))) as Array<{ type: string }>;
    expect(events.map((e) => e.type)).toEqual(['start', 'result', 'complete']);
    expect(upstream.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /ask', 'POST /v2/ask']);
    const [first, second] = upstream.seen;
    expect(second!.headers['x-api-key']).toBe(SECRET);
    expect(second!.body).toBe(first!.body);
    expect(JSON.parse(second!.body).query.text).toBe('spicy soup');
  });

  it('302 after a POST continues as a GET without the body (RFC 9110 15.4.3)', async () => {
    route = (req) => (req.url === '/ask' ? { redirect: 302, location: '/answer' } : { body: ANSWER });
    await drain(build('nlweb', KINDS[0]!.raw()).ask(ask, ctx()));
    expect(upstream.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /ask', 'GET /answer']);
    expect(upstream.seen[1]!.body).toBe('');
    expect(upstream.seen[1]!.headers['x-api-key']).toBe(SECRET);
  });

  it(`a redirect loop stops after ${MAX_REDIRECTS} hops with UPSTREAM_ERROR`, async () => {
    route = () => ({ redirect: 307, location: '/ask' });
    const err = await failure(drain(build('nlweb', KINDS[0]!.raw()).ask(ask, ctx())));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('redirected too often');
    expect(upstream.seen).toHaveLength(MAX_REDIRECTS + 1);
  });
});

describe('through the gateway', () => {
  let gw: TestGateway;
  afterEach(async () => gw?.close());

  it('a client of POST /ask gets the NLWeb failure, and the canary sees nothing', async () => {
    route = () => ({ redirect: 307, location: `${canary.url}/steal` });
    gw = await startGateway({ agents: [{ name: 'up', kind: 'nlweb', url: upstream.url, streaming: false, headers: { 'x-api-key': SECRET } }] });
    const res = await fetch(`${gw.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'soup' }, prefer: { streaming: false } }) });
    const body = (await res.json()) as { _meta: { response_type: string }; error?: { code: string; message: string } };
    expect(body._meta.response_type).toBe('failure');
    expect(JSON.stringify(body)).not.toContain(canary.url);
    expect(canary.seen).toEqual([]);
  });
});
