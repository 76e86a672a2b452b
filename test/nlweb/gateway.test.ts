import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NlwebResponseSchema } from '../../src/protocol/nlweb/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { parseSseText } from '../support/http.ts';
import { startV054Agent } from './agents/v054-agent.ts';
import { startV055Agent, V055_SECRET } from './agents/v055-agent.ts';

/**
 * Issue 2 end to end over real HTTP: an NLWeb client → the gateway → the `nlweb` adapter → a real
 * upstream NLWeb agent (v0.55 and v0.54 styles), JSON and SSE, including broken and silent upstreams.
 */
let gw: TestGateway;
let v055: Awaited<ReturnType<typeof startV055Agent>>;
let v054: Awaited<ReturnType<typeof startV054Agent>>;

const ask = async (agent: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/agents/${agent}/ask`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const json = async (agent: string, body: Record<string, unknown>) => (await ask(agent, body)).json() as Promise<Record<string, any>>;
const sse = async (agent: string, body: Record<string, unknown>) => parseSseText(await (await ask(agent, body, { accept: 'text/event-stream' })).text());

beforeAll(async () => {
  v055 = await startV055Agent({ slowMs: 400 });
  v054 = await startV054Agent();
  gw = await startGateway({
    defaults: { promiseAfterMs: 2000 },
    agents: [
      { name: 'modern', kind: 'nlweb', url: v055.url },
      { name: 'modernjson', kind: 'nlweb', url: v055.url, streaming: false },
      { name: 'older', kind: 'nlweb', url: v054.url, version: '0.54' },
      { name: 'impatient', kind: 'nlweb', url: v055.url, timeoutMs: 300 },
      { name: 'quickpromise', kind: 'nlweb', url: v055.url, promiseAfterMs: 100 },
      { name: 'down', kind: 'nlweb', url: 'http://127.0.0.1:9' },
    ],
  });
});
afterAll(async () => {
  await gw?.close();
  await v055?.close();
  await v054?.close();
});

describe('v0.55 upstream', () => {
  it.each(['modern', 'modernjson'])('answers JSON through %s with valid v0.55 responses', async (agent) => {
    const body = await json(agent, { query: { text: 'pasta' } });
    expect(NlwebResponseSchema.safeParse(body).success).toBe(true);
    expect(body._meta).toMatchObject({ response_type: 'answer', version: '0.55' });
    expect(body.results.length).toBe(3);
  });

  it('streams named events from an SSE upstream', async () => {
    const events = await sse('modern', { query: { text: 'pasta' } });
    expect(events[0]!.event).toBe('start');
    expect(events.filter((e) => e.event === 'result')).toHaveLength(3);
    expect(events.at(-1)!.event).toBe('complete');
  });

  it('keeps the upstream session_context server-side and sends it back on the next turn', async () => {
    const first = await json('modern', { query: { text: 'pasta' } });
    expect(first._meta.session_context).toEqual({ conversation_id: expect.stringMatching(/^conv_/) });
    const before = v055.received.length;
    await json('modern', { query: { text: 'quicker?' }, meta: { session_context: first._meta.session_context } });
    const sent = v055.received.slice(before).find((r) => r.path === '/ask')!.body as Record<string, any>;
    expect(sent.meta.session_context.upstream_session).toBe(1);
    expect(sent.context.prev).toEqual(['pasta']);
  });

  it('ends a stream that breaks halfway with an error event after the delivered results', async () => {
    const events = await sse('modern', { query: { text: 'break please' } });
    expect(events.map((e) => e.event)).toEqual(['start', 'result', 'error', 'complete']);
    expect(events[2]!.data).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
  });

  it('answers TIMEOUT when the upstream never answers, and keeps serving', async () => {
    const started = Date.now();
    const body = await json('impatient', { query: { text: 'hang forever' } });
    expect(body.error.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await json('modern', { query: { text: 'pasta' } }))._meta.response_type).toBe('answer');
  });

  it('never leaks an upstream 500 body, garbage, or a refused connection', async () => {
    const e500 = await json('modern', { query: { text: 'error500' } });
    expect(e500.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(e500)).not.toContain(V055_SECRET);
    expect((await json('modernjson', { query: { text: 'garbage' } })).error.code).toBe('INTERNAL_ERROR');
    const down = await json('down', { query: { text: 'x' } });
    expect(down._meta.response_type).toBe('failure');
    expect(JSON.stringify(down)).not.toContain('127.0.0.1:9');
  });

  it('forwards an upstream promise under a gateway token (202, then /await)', async () => {
    const res = await ask('modernjson', { query: { text: 'promise me' } });
    expect(res.status).toBe(202);
    const { promise } = (await res.json()) as { promise: { token: string } };
    expect(promise.token).toMatch(/^prm_/);
    const await1 = async () =>
      (await fetch(`${gw.url}/await`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ promise_token: promise.token, action: 'checkin' }) })).json() as Promise<Record<string, any>>;
    const types = [(await await1())._meta.response_type, (await await1())._meta.response_type];
    expect(types).toContain('answer');
    expect(v055.received.some((r) => r.path === '/await' && (r.body as any).promise_token !== promise.token)).toBe(true);
  });

  it('turns a slow upstream into a gateway promise (promiseAfterMs)', async () => {
    const res = await ask('quickpromise', { query: { text: 'slow soup' }, prefer: { streaming: false } });
    expect(res.status).toBe(202);
    const { promise } = (await res.json()) as { promise: { token: string } };
    const done = await (await fetch(`${gw.url}/await`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ promise_token: promise.token, action: 'checkin', wait_ms: 3000 }) })).json();
    expect((done as any)._meta.response_type).toBe('answer');
  });
});

describe('v0.54 upstream', () => {
  it('accepts capitalised response types and a stream that ends without a terminal frame', async () => {
    const events = await sse('older', { query: { text: 'pasta' } });
    expect(events.filter((e) => e.event === 'result')).toHaveLength(3);
    expect(events.at(-1)!.event).toBe('complete');
    const body = await json('older', { query: { text: 'pasta' }, prefer: { streaming: false } });
    expect(body._meta.response_type).toBe('answer');
  });

  it('turns a v0.54 failure inside HTTP 200 into a v0.55 failure', async () => {
    const body = await json('older', { query: { text: 'fail' } });
    expect(body).toMatchObject({ _meta: { response_type: 'failure', version: '0.55' }, error: { code: 'NO_RESULTS' } });
  });
});
