/**
 * Issue 25: the MCP fast path (src/bindings/mcp-http/fast-path.ts) answers exactly as the SDK path
 * does. Two gateways with one config in front of one real NLWeb v0.55 agent — one with the fast path
 * (the default binding), one with it switched off — are sent the same generated 2026-07-28 requests,
 * valid and invalid (JSON-RPC shape, ids, methods, tools, arguments, `_meta` envelope, standard
 * headers, media types, batches, notifications), and must give the same status, content type and
 * JSON body. A counter on the fast path proves it served the plain requests, so the property cannot
 * pass by the fast path always declining.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinBindings } from '../../src/bindings/index.ts';
import { mcpHttpBindingWith } from '../../src/bindings/mcp-http/index.ts';
import type { Binding } from '../../src/bindings/types.ts';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.ts';
import { connectClient } from './support.ts';

const MODERN = '2026-07-28';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const LEVEL = 'io.modelcontextprotocol/logLevel';

let upstream: Awaited<ReturnType<typeof startV055Agent>>;
let pantry: HttpFixture;
let fast: TestGateway;
let sdk: TestGateway;
const served: string[] = [];

const withMcp = (mcp: Binding) => builtinBindings.map((b) => (b.name === 'mcp-http' ? mcp : b));

beforeAll(async () => {
  upstream = await startV055Agent();
  // An MCP upstream too: its tools (output schemas, annotations) reach tools/list, and what it passes
  // through (resources, prompts, completions) the capabilities server/discover names.
  pantry = await startHttpFixture();
  const config = {
    agents: [
      { name: 'remote', kind: 'nlweb', url: upstream.url, streaming: false },
      { name: 'recipes', kind: 'scripted' },
      { name: 'pantry', kind: 'mcp', url: pantry.mcpUrl, ask: { tool: 'search', arguments: { query: '{{query.text}}' } } },
    ],
  };
  fast = await startGateway(config, { bindings: withMcp(mcpHttpBindingWith({ onFastPath: (m) => served.push(m) })) });
  sdk = await startGateway(config, { bindings: withMcp(mcpHttpBindingWith({ fastPath: false })) });
});
afterAll(async () => {
  await fast?.close();
  await sdk?.close();
  upstream?.close();
  await pantry?.close();
});

interface Sent {
  path: string;
  headers: Record<string, string>;
  body: string;
}

interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

/**
 * What legitimately differs between two gateways answering the same request: the conversation ids
 * and promise tokens they mint (random by design, NLWeb 4.1.2, 5.1), the conversation ids the
 * upstream agent mints (`v055-conv-…`, random per call), and times (a task's createdAt). Each distinct value becomes a placeholder numbered by first appearance, so
 * the bodies still have to agree on where the same id recurs.
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

/** JSON with every object's members sorted: member order carries no meaning (RFC 8259 §4), and the SDK's zod validation rebuilds results in its schemas' order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

async function send(gw: TestGateway, s: Sent): Promise<Answer> {
  const res = await gw.app.request(s.path, { method: 'POST', headers: s.headers, body: s.body });
  const text = await res.text();
  const contentType = res.headers.get('content-type');
  let body: unknown;
  try {
    body = JSON.parse(normalise(canonical(JSON.parse(text))));
  } catch {
    body = normalise(text); // an SSE or empty body is compared as text
  }
  return { status: res.status, contentType, body };
}

async function bothAgree(s: Sent): Promise<Answer> {
  const [a, b] = await Promise.all([send(fast, s), send(sdk, s)]);
  expect({ request: s, ...a }).toEqual({ request: s, ...b });
  return a;
}

// ---- generators ----

/** Mostly `right`, sometimes one of `wrong`: most generated requests are plain, each part can break. */
// Typed as `right`'s values: the wrong ones are ill-typed on purpose, and only ever serialised.
const mostly = <T,>(right: fc.Arbitrary<T>, ...wrong: fc.Arbitrary<unknown>[]): fc.Arbitrary<T> => fc.oneof({ weight: 10 * wrong.length, arbitrary: right }, ...wrong) as fc.Arbitrary<T>;
const absent = fc.constant(undefined);

const texts = fc.constantFrom('pasta', 'pumpkin', 'fail pasta', 'elicit a dinner', 'promise pasta', 'garbage', 'error500', 'ratelimit', '');
const askArgs = fc.oneof(
  texts.map((text) => ({ query: { text } })),
  texts.map((text) => ({ query: { text, site: 'remote' }, prefer: { streaming: false } })),
  fc.constant({}),
  fc.constant({ query: 3 }),
  fc.constant({ query: { text: 'pasta' }, meta: { session_context: { conversation_id: 'conv_not_mine_0000000000' } } }),
);
const awaitArgs = fc.oneof(fc.constant({ promise_token: 'prom_bogus', action: 'checkin' }), fc.constant({ promise_token: 7 }), fc.constant({}));
const toolName = mostly(fc.constant('ask'), fc.constantFrom('await', 'nope', 'recipes__echo', 'pantry__search', ''));
const caps = mostly(
  fc.constant({}),
  fc.constant({ elicitation: { form: {} } }),
  fc.constant({ sampling: {} }),
  fc.constant({ extensions: { 'io.modelcontextprotocol/tasks': {} } }),
  fc.constant({ roots: {} }),
  fc.constant('not an object'),
);
const envelope = fc.record({
  pv: mostly(fc.constant(MODERN), fc.constantFrom('2025-11-25', '2099-01-01', 42)),
  caps,
  info: fc.oneof(fc.constant({ name: 'gen', version: '1' }), absent, fc.constant('bad')),
  level: mostly(absent, fc.constantFrom('info', 'debug', 'bogus')),
  extra: mostly(fc.constant({}), fc.constantFrom({ progressToken: 'p1' }, { 'example.com/x': 1 })),
});
const message = fc.record({
  jsonrpc: mostly(fc.constant('2.0'), fc.constant('1.0'), absent),
  id: mostly(fc.integer({ min: -5, max: 1e6 }), fc.string({ maxLength: 8 }), fc.constant(1.5), fc.constant(null), fc.constant({ no: 1 }), absent),
  method: mostly(fc.constantFrom('tools/call', 'tools/list', 'server/discover'), fc.constantFrom('ping', 'initialize', 'tools/nope', 'resources/list', 'tasks/get')),
  name: toolName,
  args: fc.oneof(askArgs, awaitArgs, fc.constant('not an object'), absent),
  env: mostly(envelope, absent),
  extras: mostly(fc.constant({}), fc.constantFrom({ cursor: 'x' }, { task: { ttl: 1000 } }, { inputResponses: {} }, { requestState: 'x' })),
});
const request = fc
  .record({
    m: message,
    path: fc.constantFrom('/mcp', '/agents/remote/mcp', '/agents/pantry/mcp'),
    contentType: mostly(fc.constant('application/json'), fc.constantFrom('application/json; charset=utf-8', 'text/plain')),
    accept: fc.constantFrom('application/json, text/event-stream', 'application/json', undefined),
    pvHeader: fc.nat(19),
    methodHeader: fc.nat(19),
    nameHeader: fc.nat(19),
    batch: mostly(fc.constant(false), fc.constant(true)),
  })
  .map(({ m, path, contentType, accept, pvHeader, methodHeader, nameHeader, batch }): Sent => {
    const meta: Record<string, unknown> | undefined = m.env && {
      [PV]: m.env.pv,
      [CAPS]: m.env.caps,
      ...(m.env.info !== undefined ? { [INFO]: m.env.info } : {}),
      ...(m.env.level !== undefined ? { [LEVEL]: m.env.level } : {}),
      ...m.env.extra,
    };
    const params = { ...(m.method === 'tools/call' ? { name: m.name, ...(m.args !== undefined ? { arguments: m.args } : {}) } : {}), ...m.extras, ...(meta ? { _meta: meta } : {}) };
    const msg = { jsonrpc: m.jsonrpc, ...(m.id !== undefined ? { id: m.id } : {}), method: m.method, params };
    // Each header is right most of the time, else missing or wrong (SEP-2243's cross-checks).
    const pick = (n: number, right: string | undefined) => (n < 17 ? right : n === 17 ? undefined : 'wrong');
    const headers: Record<string, string | undefined> = {
      'content-type': contentType,
      accept,
      'mcp-protocol-version': pick(pvHeader, MODERN),
      'mcp-method': pick(methodHeader, m.method),
      'mcp-name': m.method === 'tools/call' ? (nameHeader === 19 ? `=?base64?${Buffer.from(String(m.name)).toString('base64')}?=` : pick(nameHeader, String(m.name))) : undefined,
    };
    return { path, headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined)), body: JSON.stringify(batch ? [msg] : msg) };
  });

// ---- the tests ----

/** A plain 2026-07-28 request, as a conforming client sends it. */
function plain(method: string, params: Record<string, unknown> = {}, path = '/agents/remote/mcp'): Sent {
  const name = typeof params.name === 'string' ? params.name : undefined;
  return {
    path,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: { [PV]: MODERN, [CAPS]: {}, [INFO]: { name: 't', version: '1' } } } }),
  };
}

describe('MCP fast path against the SDK path (issue 25)', () => {
  it('serves plain tools/call ask and await, tools/list and server/discover, with the SDK path\'s answers', async () => {
    const cases = [
      plain('tools/call', { name: 'ask', arguments: { query: { text: 'pasta' } } }),
      plain('tools/call', { name: 'ask', arguments: { query: { text: 'fail pasta' } } }),
      plain('tools/call', { name: 'ask', arguments: { query: { text: 'elicit a dinner' } } }),
      plain('tools/call', { name: 'ask', arguments: { query: 3 } }),
      plain('tools/call', { name: 'await', arguments: { promise_token: 'prom_bogus', action: 'checkin' } }),
      plain('tools/call', { name: 'nope', arguments: {} }),
      plain('tools/list'),
      plain('tools/list', {}, '/mcp'),
      plain('server/discover'),
      plain('server/discover', {}, '/mcp'),
      plain('tools/list', {}, '/agents/pantry/mcp'),
      plain('server/discover', {}, '/agents/pantry/mcp'),
      plain('tools/call', { name: 'ask', arguments: { query: { text: 'pumpkin' } } }, '/agents/pantry/mcp'),
    ];
    served.length = 0;
    for (const c of cases) {
      const a = await bothAgree(c);
      expect(a.status).toBe(200);
    }
    expect(served).toEqual([
      ...Array(6).fill('tools/call'),
      ...['tools/list', 'tools/list', 'server/discover', 'server/discover', 'tools/list', 'server/discover', 'tools/call'],
    ]);
  });

  it('answers await on a promise each gateway made itself as the SDK path does', async () => {
    // A promise token is one gateway's own: each makes one, then cancels it.
    const answers: Answer[] = [];
    for (const gw of [fast, sdk]) {
      const made = plain('tools/call', { name: 'ask', arguments: { query: { text: 'promise pasta' } } });
      const res = await gw.app.request(made.path, { method: 'POST', headers: made.headers, body: made.body });
      const token = ((await res.json()) as { result: { structuredContent: { promise: { token: string } } } }).result.structuredContent.promise.token;
      answers.push(await send(gw, plain('tools/call', { name: 'await', arguments: { promise_token: token, action: 'cancel' } })));
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(200);
  });

  it('leaves agent tools, progress tokens, log levels, elicitation and task clients to the SDK', async () => {
    const withMeta = (s: Sent, extra: Record<string, unknown>) => {
      const body = JSON.parse(s.body);
      body.params._meta = { ...body.params._meta, ...extra };
      return { ...s, body: JSON.stringify(body) };
    };
    const ask = plain('tools/call', { name: 'ask', arguments: { query: { text: 'pasta' } } });
    served.length = 0;
    await bothAgree(plain('tools/call', { name: 'recipes__echo', arguments: {} }, '/mcp'));
    await bothAgree(withMeta(ask, { progressToken: 'p' }));
    await bothAgree(withMeta(ask, { [LEVEL]: 'info' }));
    await bothAgree(withMeta(ask, { [CAPS]: { elicitation: { form: {} } } }));
    await bothAgree(withMeta(ask, { [CAPS]: { extensions: { 'io.modelcontextprotocol/tasks': {} } } }));
    expect(served).toEqual([]);
  });

  it('serves what the SDK\'s own 2026-07-28 client sends (discover, tools/list, tools/call ask)', async () => {
    served.length = 0;
    const client = await connectClient(`${fast.url}/agents/remote/mcp`, MODERN);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('ask');
      const result = await client.callTool({ name: 'ask', arguments: { query: { text: 'pasta' } } });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(served).toEqual(['server/discover', 'tools/list', 'tools/call']);
  });

  it('answers every generated request, valid or not, as the SDK path does', async () => {
    served.length = 0;
    await fc.assert(fc.asyncProperty(request, async (s) => void (await bothAgree(s))), { numRuns: 500 });
    // The generator makes mostly well-formed requests: a good share of them must have been the fast path's.
    expect(served.length).toBeGreaterThan(50);
    expect(new Set(served)).toEqual(new Set(['tools/call', 'tools/list', 'server/discover']));
  });
});
