/**
 * The `nlweb` adapter driven directly (agent.ask / agent.await with a hand-built CallContext)
 * against the real v0.55 and v0.54 test agents over HTTP on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nlwebAdapter } from '../../adapters/nlweb/index.ts';
import type { Agent, CallContext } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { startV054Agent } from './agents/v054-agent.ts';
import { startV055Agent, V055_SECRET } from './agents/v055-agent.ts';

type Started = Awaited<ReturnType<typeof startV055Agent>>;
let v055: Started;
let v054: Started;

beforeAll(async () => {
  [v055, v054] = await Promise.all([startV055Agent({ slowMs: 100 }), startV054Agent()]);
});
afterAll(async () => {
  await Promise.all([v055?.close(), v054?.close()]);
});

/** An `nlweb` agent built exactly as the gateway builds one: config parsed by the adapter's schema. */
function makeAgent(url: string, kind: Record<string, unknown> = {}, common: { timeoutMs?: number } = {}): Agent {
  const config = nlwebAdapter.configSchema.parse({ url, ...kind });
  return nlwebAdapter.create({ ...config, name: 'up', kind: 'nlweb', ...common }, { log: silentLogger, baseDir: '.' });
}
const ctx = (extra: Partial<CallContext> = {}): CallContext => ({
  signal: AbortSignal.timeout(10_000), requestId: 'req-1', log: silentLogger, ...extra,
});
async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}
async function rejection(events: AsyncIterable<AgentEvent>): Promise<GatewayError> {
  const err = await collect(events).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}
const types = (events: AgentEvent[]) => events.map((e) => e.type);
const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
const lastBody = (s: Started) => s.received.at(-1)!.body as Record<string, any>;
const lastHeaders = (s: Started) => s.received.at(-1)!.headers;

describe('nlweb adapter → v0.55 agent', () => {
  it('asks over JSON when streaming is off and maps the answer', async () => {
    const events = await collect(makeAgent(v055.url, { streaming: false }).ask({ query: { text: 'pasta' } }, ctx()));
    expect(types(events)).toEqual(['start', 'result', 'result', 'result', 'complete']);
    expect(of(events, 'complete')[0]!.meta?.session_context).toMatchObject({ upstream_session: 1 });
    expect(lastHeaders(v055).accept).toBe('application/json');
    expect(lastBody(v055).prefer).toEqual({ streaming: false });
    expect(lastBody(v055).meta).toEqual({ version: '0.55' });
  });

  it('asks for SSE by default and maps named events', async () => {
    const events = await collect(makeAgent(`${v055.url}/`).ask({ query: { text: 'pasta' }, prefer: { mode: 'list, summarize' } }, ctx()));
    expect(types(events)).toEqual(['start', 'result', 'result', 'result', 'result', 'complete']);
    expect(of(events, 'result')[0]!.item['@type']).toBe('SearchSummary');
    expect(of(events, 'result')[1]!.item).toMatchObject({ '@id': 'https://v055.example/items/1', site: 'v055.example', score: 0.9 });
    expect(lastHeaders(v055).accept).toBe('text/event-stream');
    expect(lastBody(v055).prefer).toEqual({ mode: 'list, summarize', streaming: true });
  });

  it('sends the upstream its own session_context back and fills context.prev', async () => {
    const agent = makeAgent(v055.url);
    const first = await collect(agent.ask({ query: { text: 'one' } }, ctx({ conversation: { id: 'c', prev: [], attrs: {} } })));
    const session = of(first, 'complete')[0]!.meta!.session_context as Record<string, unknown>;
    expect(session.upstream_session).toBe(1);
    const second = await collect(agent.ask(
      { query: { text: 'two' }, meta: { session_context: { gateway: 'mine' } } },
      ctx({ conversation: { id: 'c', prev: ['one'], upstreamSession: session, attrs: {} } }),
    ));
    expect(lastBody(v055).meta.session_context).toEqual(session);
    expect(lastBody(v055).context).toEqual({ prev: ['one'] });
    expect(of(second, 'complete')[0]!.meta!.session_context).toEqual({ ...session, upstream_session: 2 });
  });

  it('forwards Authorization only from ctx.credentials, plus the configured headers', async () => {
    const agent = makeAgent(v055.url, { headers: { 'X-Api-Key': 'gateway-key' } });
    await collect(agent.ask({ query: { text: 'a' } }, ctx()));
    expect(lastHeaders(v055)['x-api-key']).toBe('gateway-key');
    expect(lastHeaders(v055).authorization).toBeUndefined();
    await collect(agent.ask({ query: { text: 'a' } }, ctx({ credentials: { authorization: 'Bearer client' } })));
    expect(lastHeaders(v055).authorization).toBe('Bearer client');
  });

  it('delivers results as they arrive, before the stream ends (no buffering)', async () => {
    const controller = new AbortController();
    const events = makeAgent(v055.url).ask({ query: { text: 'stall please' } }, ctx({ signal: controller.signal }))[Symbol.asyncIterator]();
    expect((await events.next()).value).toMatchObject({ type: 'start' });
    expect((await events.next()).value).toMatchObject({ type: 'result' });
    const pending = events.next();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('maps a ChatGPT App answer, an elicitation and a failure inside HTTP 200', async () => {
    const agent = makeAgent(v055.url, { streaming: false });
    const app = await collect(agent.ask({ query: { text: 'soup' }, prefer: { response_format: 'chatgpt_app' } }, ctx()));
    expect(of(app, 'result').map((e) => e.item['@type'])).toEqual(['SearchSummary', 'Recipe', 'Recipe', 'Recipe']);
    const elicit = await collect(agent.ask({ query: { text: 'elicit me' } }, ctx()));
    expect(of(elicit, 'elicitation')[0]!.elicitation.questions).toHaveLength(2);
    const failed = await collect(agent.ask({ query: { text: 'fail now' } }, ctx()));
    expect(types(failed)).toEqual(['start', 'error', 'complete']);
    expect(of(failed, 'error')[0]).toMatchObject({ code: 'NO_RESULTS', recoverable: false });
  });

  it('maps SSE error events: final before complete, recoverable when results follow', async () => {
    const failed = await collect(makeAgent(v055.url).ask({ query: { text: 'fail' } }, ctx()));
    expect(types(failed)).toEqual(['start', 'error', 'complete']);
    expect(of(failed, 'error')[0]).toMatchObject({ code: 'NO_RESULTS', recoverable: false });
    const recovered = await collect(makeAgent(v055.url).ask({ query: { text: 'recoverable' } }, ctx()));
    expect(types(recovered)).toEqual(['start', 'result', 'error', 'result', 'complete']);
    expect(of(recovered, 'error')[0]).toMatchObject({ code: 'TOKEN_LIMIT', recoverable: true });
  });

  it('forwards an upstream promise and continues it through /await', async () => {
    const agent = makeAgent(v055.url);
    const asked = await collect(agent.ask({ query: { text: 'promise me' } }, ctx()));
    const token = of(asked, 'promise')[0]!.promise.token;
    expect(token).toMatch(/^v055-promise-/);
    const first = await collect(agent.await!(token, 'checkin', ctx()));
    expect(of(first, 'promise')[0]!.promise).toMatchObject({ token, progress: 0.5 });
    expect(lastBody(v055)).toEqual({ promise_token: token, action: 'checkin', meta: { version: '0.55' } });
    const done = await collect(agent.await!(token, 'checkin', ctx()));
    expect(types(done)).toEqual(['start', 'result', 'result', 'result', 'complete']);
    const again = await collect(agent.ask({ query: { text: 'promise' } }, ctx()));
    const cancelled = await collect(agent.await!(of(again, 'promise')[0]!.promise.token, 'cancel', ctx()));
    expect(of(cancelled, 'error')[0]).toMatchObject({ code: 'CANCELLED' });
  });

  it('ends a stream that breaks halfway with INTERNAL_ERROR and complete, after the delivered result', async () => {
    const events = await collect(makeAgent(v055.url).ask({ query: { text: 'break' } }, ctx()));
    expect(types(events)).toEqual(['start', 'result', 'error', 'complete']);
    expect(of(events, 'error')[0]).toMatchObject({ code: 'INTERNAL_ERROR', recoverable: false });
    expect(of(events, 'error')[0]!.message).toMatch(/broke off/);
  });

  it('fails a JSON body cut halfway with UPSTREAM_ERROR', async () => {
    const err = await rejection(makeAgent(v055.url, { streaming: false }).ask({ query: { text: 'break' } }, ctx()));
    expect(err.code).toBe('UPSTREAM_ERROR');
  });

  it('ends a stream with garbage data with INTERNAL_ERROR, keeping the result before it', async () => {
    const events = await collect(makeAgent(v055.url).ask({ query: { text: 'garbage' } }, ctx()));
    expect(types(events)).toEqual(['start', 'result', 'error', 'complete']);
    expect(of(events, 'error')[0]!.message).toMatch(/not JSON/);
    const err = await rejection(makeAgent(v055.url, { streaming: false }).ask({ query: { text: 'garbage' } }, ctx()));
    expect(err.code).toBe('UPSTREAM_ERROR');
  });

  it('times out a hanging upstream (timeoutMs) instead of hanging', async () => {
    const started = Date.now();
    const err = await rejection(makeAgent(v055.url, {}, { timeoutMs: 300 }).ask({ query: { text: 'hang' } }, ctx()));
    expect(err.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('times out a stream that stalls after a result with a TIMEOUT error and complete', async () => {
    const events = await collect(makeAgent(v055.url, {}, { timeoutMs: 400 }).ask({ query: { text: 'stall' } }, ctx()));
    expect(types(events)).toEqual(['start', 'result', 'error', 'complete']);
    expect(of(events, 'error')[0]).toMatchObject({ code: 'TIMEOUT', recoverable: false });
  });

  it('stops a hanging call when ctx.signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const err = await rejection(makeAgent(v055.url).ask({ query: { text: 'hang' } }, ctx({ signal: controller.signal })));
    expect(err.code).toBe('CANCELLED');
    const pre = new AbortController();
    pre.abort();
    expect((await rejection(makeAgent(v055.url).ask({ query: { text: 'a' } }, ctx({ signal: pre.signal })))).code).toBe('CANCELLED');
  });

  it('waits for a slow upstream', async () => {
    const events = await collect(makeAgent(v055.url).ask({ query: { text: 'slow' } }, ctx()));
    expect(of(events, 'result')).toHaveLength(3);
  });

  it('turns HTTP 500 into UPSTREAM_ERROR without leaking the body or the URL', async () => {
    const err = await rejection(makeAgent(v055.url).ask({ query: { text: 'error500' } }, ctx()));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('500');
    expect(err.message).not.toContain(V055_SECRET);
    expect(err.message).not.toContain('127.0.0.1');
  });

  it('turns HTTP 429 into RATE_LIMITED with Retry-After', async () => {
    const err = await rejection(makeAgent(v055.url).ask({ query: { text: 'ratelimit' } }, ctx()));
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.retryAfter).toBe(7);
  });

  it('reports an unreachable upstream as UPSTREAM_ERROR', async () => {
    const gone = await startV055Agent();
    await gone.close();
    expect((await rejection(makeAgent(gone.url).ask({ query: { text: 'a' } }, ctx()))).code).toBe('UPSTREAM_ERROR');
  });

  it('describes itself from config', async () => {
    expect(await makeAgent(v055.url).describe()).toEqual({ description: 'An NLWeb v0.55 agent', capabilities: { streaming: true } });
  });
});

describe('nlweb adapter → v0.54 agent', () => {
  const agent = () => makeAgent(v054.url, { version: '0.54' });

  it('maps an unnamed-frame stream that ends without a terminal frame (EOF = complete)', async () => {
    const events = await collect(agent().ask({ query: { text: 'pumpkin' } }, ctx()));
    expect(types(events)).toEqual(['start', 'result', 'result', 'result', 'complete']);
    expect(of(events, 'start')[0]!.meta).toMatchObject({ response_type: 'answer', version: '0.54' });
    expect(of(events, 'complete')[0]!.meta!.session_context).toMatchObject({ conversation_id: expect.stringMatching(/^v054-conv-/) });
    expect(of(events, 'result')[0]!.item).toMatchObject({ '@id': 'https://v054.example/recipes/1', score: 90, site: 'v054.example' });
    expect(lastBody(v054).meta).toEqual({ version: '0.54', api_version: '0.54' });
  });

  it('maps a JSON answer with response_type "Answer"', async () => {
    const events = await collect(makeAgent(v054.url, { version: '0.54', streaming: false }).ask({ query: { text: 'pumpkin' } }, ctx()));
    expect(of(events, 'result')).toHaveLength(3);
    expect(of(events, 'start')[0]!.meta?.response_type).toBe('answer');
  });

  it('maps an elicitation frame and a failure inside the stream (HTTP 200)', async () => {
    expect(types(await collect(agent().ask({ query: { text: 'elicit' } }, ctx())))).toEqual(['start', 'elicitation', 'complete']);
    const failed = await collect(agent().ask({ query: { text: 'fail' } }, ctx()));
    expect(types(failed)).toEqual(['start', 'error', 'complete']);
    expect(of(failed, 'error')[0]).toMatchObject({ code: 'NO_RESULTS', recoverable: false });
  });

  it('maps a ChatGPT App reply (structuredData + content)', async () => {
    const events = await collect(agent().ask({ query: { text: 'chatgpt' } }, ctx()));
    expect(of(events, 'result').map((e) => e.item['@type'])).toEqual(['SearchSummary', 'Recipe', 'Recipe', 'Recipe']);
    expect(of(events, 'result')[0]!.item.text).toBe('Here are 3 results.');
  });

  it('follows a v0.54 promise (response_type at the top level) through /await', async () => {
    const asked = await collect(agent().ask({ query: { text: 'promise' } }, ctx()));
    const promise = of(asked, 'promise')[0]!.promise;
    expect(promise).toMatchObject({ estimated_time: 120 });
    const done = await collect(agent().await!(promise.token, 'checkin', ctx()));
    expect(of(done, 'result')).toHaveLength(3);
    expect(lastBody(v054)).toEqual({ promise_token: promise.token, action: 'checkin', meta: { version: '0.54', api_version: '0.54' } });
  });
});
