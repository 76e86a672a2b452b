/**
 * Issue 25: the session fast path (src/bindings/mcp-http/session-fast-path.ts) answers a 2025
 * session's requests byte for byte as the SDK path does. Two gateways with one config in front of
 * one real NLWeb v0.55 agent, a scripted agent and an MCP agent — one with the fast paths (the
 * default binding), one with them switched off — get the same sessions (a 2025-11-25 one, a
 * 2025-06-18 one, one that declared elicitation, another caller's) and the same generated requests
 * over real HTTP, valid and invalid (JSON-RPC shape, ids, methods, tools, arguments, extra params,
 * `_meta`, session ids, `MCP-Protocol-Version`, media types, `Accept`, batches, notifications), and
 * must give the same status, headers and body text (ids the two gateways mint aside). A counter on
 * the fast path proves it served the plain requests, so the property cannot pass by declining.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinBindings } from '../../src/bindings/index.ts';
import { mcpHttpBindingWith } from '../../src/bindings/mcp-http/index.ts';
import type { Binding } from '../../src/bindings/types.ts';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { alice, bob, type Fetch } from '../support/principals.ts';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.ts';
import { connectClient } from './support.ts';

const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** Headers that legitimately differ per answer: when, which request, and the framing @hono/node-server picks by timing. */
const PER_ANSWER_HEADERS = new Set(['date', 'x-request-id', 'content-length', 'transfer-encoding', 'keep-alive']);

let upstream: Awaited<ReturnType<typeof startV055Agent>>;
let pantry: HttpFixture;
let fast: Side;
let sdk: Side;
const served: string[] = [];

/** One gateway and the sessions opened on it, by role. */
interface Side {
  gw: TestGateway;
  sessions: Record<SessionRole, string>;
}
type SessionRole = 'own' | 'old' | 'elicit' | 'sampling' | 'bobs';
const VERSIONS: Record<SessionRole, string> = { own: '2025-11-25', old: '2025-06-18', elicit: '2025-11-25', sampling: '2025-11-25', bobs: '2025-11-25' };

const withMcp = (mcp: Binding) => builtinBindings.map((b) => (b.name === 'mcp-http' ? mcp : b));

async function openSession(gw: TestGateway, who: Fetch, protocolVersion: string, capabilities: Record<string, unknown>): Promise<string> {
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'diff', version: '1' } } };
  const res = await who(`${gw.url}/mcp`, { method: 'POST', headers: JSON_AND_SSE, body: JSON.stringify(init) });
  await res.text();
  const id = res.headers.get('mcp-session-id')!;
  const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
  await (await who(`${gw.url}/mcp`, { method: 'POST', headers: { ...JSON_AND_SSE, 'mcp-session-id': id, 'mcp-protocol-version': protocolVersion }, body: JSON.stringify(note) })).text();
  return id;
}

async function side(mcp: Binding, config: Record<string, unknown>): Promise<Side> {
  const gw = await startGateway(config, { bindings: withMcp(mcp) });
  return {
    gw,
    sessions: {
      own: await openSession(gw, alice, VERSIONS.own, {}),
      old: await openSession(gw, alice, VERSIONS.old, {}),
      elicit: await openSession(gw, alice, VERSIONS.elicit, { elicitation: {} }),
      sampling: await openSession(gw, alice, VERSIONS.sampling, { sampling: {} }),
      bobs: await openSession(gw, bob, VERSIONS.bobs, {}),
    },
  };
}

beforeAll(async () => {
  upstream = await startV055Agent();
  pantry = await startHttpFixture();
  const config = {
    agents: [
      { name: 'remote', kind: 'nlweb', url: upstream.url, streaming: false },
      { name: 'recipes', kind: 'scripted' },
      { name: 'pantry', kind: 'mcp', url: pantry.mcpUrl, ask: { tool: 'search', arguments: { query: '{{query.text}}' } } },
    ],
  };
  fast = await side(mcpHttpBindingWith({ onFastPath: (m) => served.push(m) }), config);
  sdk = await side(mcpHttpBindingWith({ fastPath: false }), config);
});
afterAll(async () => {
  await fast?.gw.close();
  await sdk?.gw.close();
  upstream?.close();
  await pantry?.close();
});

/** A request, with its session named by role (each gateway has its own id for it). */
interface Sent {
  path: string;
  session: SessionRole | 'unknown' | 'none';
  headers: Record<string, string>;
  body: string;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What legitimately differs between two gateways answering the same request: the session ids,
 * conversation ids and promise tokens they mint (random by design), the conversation ids the
 * upstream agent mints, and times. Each distinct value becomes a placeholder numbered by first
 * appearance, so the answers still have to agree on where the same id recurs.
 */
function normalise(text: string): string {
  const seen = new Map<string, string>();
  const mark = (v: string) => {
    if (!seen.has(v)) seen.set(v, `<id${seen.size}>`);
    return seen.get(v)!;
  };
  return text
    .replace(/\b[a-z]{2,5}_[A-Za-z0-9_-]{16,}\b/g, mark)
    .replace(/\bv055-conv-[0-9a-f]+\b/g, mark)
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, mark)
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>');
}

async function send(s: Side, sent: Sent, who: Fetch = alice): Promise<Answer> {
  const session = sent.session === 'unknown' ? 'mcp_AAAAAAAAAAAAAAAAAAAAAA' : sent.session === 'none' ? undefined : s.sessions[sent.session];
  const headers = { ...sent.headers, ...(session ? { 'mcp-session-id': session } : {}) };
  const res = await who(`${s.gw.url}${sent.path}`, { method: 'POST', headers, body: sent.body });
  const body = normalise(await res.text());
  const kept: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!PER_ANSWER_HEADERS.has(k)) kept[k] = normalise(v);
  });
  return { status: res.status, headers: kept, body };
}

/** Sends `sent` to both gateways; their answers must be the same, byte for byte. */
async function bothAgree(sent: Sent): Promise<Answer> {
  const [a, b] = await Promise.all([send(fast, sent), send(sdk, sent)]);
  expect({ request: sent, ...a }).toEqual({ request: sent, ...b });
  return a;
}

/** A plain request of the `own` session, as the SDK's own 2025 client sends it. */
function plain(method: string, params?: Record<string, unknown>, path = '/agents/remote/mcp', session: SessionRole = 'own'): Sent {
  return {
    path,
    session,
    headers: { ...JSON_AND_SSE, 'mcp-protocol-version': VERSIONS[session] },
    body: JSON.stringify({ method, ...(params ? { params } : {}), jsonrpc: '2.0', id: 7 }),
  };
}
const call = (name: string, args?: unknown, path?: string, session?: SessionRole) => plain('tools/call', { name, ...(args !== undefined ? { arguments: args } : {}) }, path, session);

// ---- generators ----

/** Mostly `right`, sometimes one of `wrong`: most generated requests are plain, each part can break. */
const mostly = <T,>(right: fc.Arbitrary<T>, ...wrong: fc.Arbitrary<unknown>[]): fc.Arbitrary<T> => fc.oneof({ weight: 10 * wrong.length, arbitrary: right }, ...wrong) as fc.Arbitrary<T>;
const absent = fc.constant(undefined);

const texts = fc.constantFrom('pasta', 'pumpkin', 'fail pasta', 'elicit a dinner', 'promise pasta', 'garbage', 'error500', 'ratelimit', '', 'count:3', 'fail');
const askArgs = fc.oneof(
  texts.map((text) => ({ query: { text } })),
  texts.map((text) => ({ query: { text, site: 'remote' }, prefer: { streaming: false } })),
  fc.constant({}),
  fc.constant({ query: 3 }),
  fc.constant({ query: { text: 'pasta' }, meta: { session_context: { conversation_id: 'conv_not_mine_0000000000' } } }),
  fc.constant(JSON.parse('{"__proto__":{"query":{"text":"pasta"}}}') as unknown),
);
const awaitArgs = fc.oneof(fc.constant({ promise_token: 'prm_bogus', action: 'checkin' }), fc.constant({ promise_token: 7 }), fc.constant({}));
const toolName = mostly(fc.constant('ask'), fc.constantFrom('await', 'nope', 'recipes__echo', 'pantry__search', 'echo', ''));
const message = fc.record({
  jsonrpc: mostly(fc.constant('2.0'), fc.constant('1.0'), absent),
  id: mostly(fc.integer({ min: -5, max: 1e6 }), fc.string({ maxLength: 8 }), fc.constant(1.5), fc.constant(null), fc.constant({ no: 1 }), fc.constant(2 ** 60), absent),
  method: mostly(
    fc.constantFrom('tools/call', 'tools/list', 'ping'),
    fc.constantFrom('initialize', 'notifications/initialized', 'notifications/cancelled', 'logging/setLevel', 'tasks/get', 'resources/list', 'server/discover', 'nope'),
  ),
  name: toolName,
  args: fc.oneof(askArgs, awaitArgs, fc.constant('not an object'), fc.constant([1]), absent),
  params: mostly(fc.constant({}), fc.constantFrom({ _meta: { progressToken: 'p1' } }, { _meta: {} }, { task: { ttl: 1000 } }, { cursor: 'x' }, { extra: 1 }, 'params')),
  extra: mostly(fc.constant({}), fc.constant({ result: {} }), fc.constant({ more: 1 })),
});
const request = fc
  .record({
    m: message,
    path: fc.constantFrom('/mcp', '/agents/remote/mcp', '/agents/recipes/mcp', '/agents/pantry/mcp'),
    session: mostly(fc.constant<SessionRole | 'unknown' | 'none'>('own'), fc.constantFrom('old', 'elicit', 'sampling', 'bobs', 'unknown', 'none')),
    contentType: mostly(fc.constant('application/json'), fc.constantFrom('application/json; charset=utf-8', 'text/plain')),
    accept: mostly(fc.constant('application/json, text/event-stream'), fc.constantFrom('application/json', 'text/event-stream', 'text/event-stream, application/json', undefined)),
    version: mostly(fc.constant<string | undefined>('session'), fc.constantFrom(undefined, '2025-06-18', '2024-11-05', '2026-07-28', 'bogus', '1999-01-01')),
    batch: mostly(fc.constant(false), fc.constant(true)),
  })
  .map(({ m, path, session, contentType, accept, version, batch }): Sent => {
    // A session that declared elicitation would be asked a question on the POST stream and wait for
    // its answer (the SDK path's elicitation, covered by the other MCP suites): its asks never elicit.
    const args = session === 'elicit' && JSON.stringify(m.args ?? '').includes('elicit') ? { query: { text: 'pasta' } } : m.args;
    const params = m.method === 'tools/call' ? (typeof m.params === 'string' ? m.params : { name: m.name, ...(args !== undefined ? { arguments: args } : {}), ...m.params }) : m.params;
    const msg = { jsonrpc: m.jsonrpc, ...(m.id !== undefined ? { id: m.id } : {}), method: m.method, ...(params !== undefined ? { params } : {}), ...m.extra };
    const pv = version === 'session' ? (session === 'old' ? '2025-06-18' : '2025-11-25') : version;
    const headers = Object.fromEntries(Object.entries({ 'content-type': contentType, accept, 'mcp-protocol-version': pv }).filter((e): e is [string, string] => e[1] !== undefined));
    return { path, session, headers, body: JSON.stringify(batch ? [msg] : msg) };
  });

// ---- the tests ----

describe('MCP session fast path against the SDK path (issue 25)', () => {
  it('serves plain tools/call ask and await, unknown tools, tools/list and ping with the SDK path\'s bytes', async () => {
    const cases = [
      call('ask', { query: { text: 'pasta' } }),
      call('ask', { query: { text: 'pumpkin' } }), // the same session: the conversation continues (context.prev)
      call('ask', { query: { text: 'fail pasta' } }),
      call('ask', { query: { text: 'elicit a dinner' } }),
      call('ask', { query: 3 }),
      call('ask'),
      call('ask', { query: { text: 'count:3' } }, '/agents/recipes/mcp', 'sampling'),
      call('ask', { query: { text: 'pasta' } }, '/mcp', 'old'),
      call('await', { promise_token: 'prm_bogus', action: 'checkin' }),
      call('nope', {}),
      call('echo', {}, '/mcp'),
      plain('tools/list'),
      plain('tools/list', undefined, '/mcp'),
      plain('tools/list', undefined, '/agents/pantry/mcp'),
      plain('tools/list', {}, '/mcp', 'old'),
      plain('ping'),
      plain('ping', {}, '/mcp', 'bobs'),
    ];
    served.length = 0;
    for (const c of cases) {
      const a = await bothAgree(c);
      expect(a.status, c.body).toBe(c.session === 'bobs' ? 404 : 200);
    }
    expect(served).toEqual([...Array(11).fill('tools/call'), 'tools/list', 'tools/list', 'tools/list', 'tools/list', 'ping']);
  });

  it('answers await on a promise each gateway made itself as the SDK path does', async () => {
    const answers: Answer[] = [];
    for (const s of [fast, sdk]) {
      const made = call('ask', { query: { text: 'promise pasta' } });
      const res = await alice(`${s.gw.url}${made.path}`, { method: 'POST', headers: { ...made.headers, 'mcp-session-id': s.sessions.own }, body: made.body });
      const token = /"token":"(prm_[A-Za-z0-9_-]+)"/.exec(await res.text())![1]!;
      answers.push(await send(s, call('await', { promise_token: token, action: 'cancel' })));
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(200);
  });

  it('leaves agent tools, progress tokens, tasks, elicitation-capable asks, other methods and batches to the SDK', async () => {
    const withParams = (s: Sent, extra: Record<string, unknown>) => {
      const body = JSON.parse(s.body);
      body.params = { ...body.params, ...extra };
      return { ...s, body: JSON.stringify(body) };
    };
    const ask = call('ask', { query: { text: 'pasta' } });
    served.length = 0;
    await bothAgree(call('recipes__echo', { say: 'hi' }, '/mcp'));
    await bothAgree(call('recipes__echo', { say: 'hi' }, '/agents/recipes/mcp'));
    await bothAgree(withParams(ask, { _meta: { progressToken: 'p' } }));
    await bothAgree(withParams(ask, { task: { ttl: 60000 } }));
    await bothAgree(call('ask', { query: { text: 'pasta' } }, '/agents/remote/mcp', 'elicit'));
    await bothAgree(plain('logging/setLevel', { level: 'warning' }));
    await bothAgree({ ...ask, body: `[${ask.body}]` });
    expect(served).toEqual([]);
  });

  it('serves what the SDK\'s own 2025-11-25 client sends (tools/list, tools/call ask, ping)', async () => {
    served.length = 0;
    const client = await connectClient(`${fast.gw.url}/agents/remote/mcp`, '2025-11-25');
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('ask');
      const result = await client.callTool({ name: 'ask', arguments: { query: { text: 'pasta' } } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { results: unknown[] }).results).toHaveLength(3);
      await client.ping();
    } finally {
      await client.close();
    }
    expect(served).toEqual(['tools/list', 'tools/call', 'ping']);
  });

  it('answers every generated request, valid or not, as the SDK path does', async () => {
    served.length = 0;
    await fc.assert(fc.asyncProperty(request, async (s) => void (await bothAgree(s))), { numRuns: 400 });
    // The generator makes mostly well-formed requests: a good share of them must have been the fast path's.
    expect(served.length).toBeGreaterThan(40);
    expect(new Set(served)).toEqual(new Set(['tools/call', 'tools/list', 'ping']));
  }, 120_000);
});
