import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type GatewayApp } from '../../app.ts';
import { parseConfig } from '../../config/load.ts';
import { silentLogger } from '../../base/logger.ts';
import { NlwebResponseSchema } from '../../../src/protocol/nlweb/index.ts';
import { parseSseText } from '../../../test/support/http.ts';
import { scriptedAdapter, scriptedCalls } from '../../../test/support/scripted-agent.ts';

let gw: GatewayApp;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  gw.app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const ask = (text: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post('/ask', { query: { text }, ...extra }, headers);
const lastCall = () => scriptedCalls[scriptedCalls.length - 1]!;

beforeAll(async () => {
  const { config } = parseConfig(
    {
      server: { bodyLimitBytes: 4096, corsOrigins: ['https://shop.example'] },
      auth: { apiKeys: [{ principal: 'abc', key: 'abc-key-0123456789' }, { principal: 'someone-else', key: 'else-key-0123456789' }] },
      defaults: { promiseAfterMs: 150, leaseMs: 300 },
      agents: [
        { name: 'main', kind: 'scripted' },
        { name: 'other', kind: 'scripted', timeoutMs: 200, promiseAfterMs: 5000 },
        { name: 'locked', kind: 'scripted', requireAuth: true },
        { name: 'trusting', kind: 'scripted', forwardCredentials: true },
        { name: 'limited', kind: 'scripted', rateLimit: { requests: 2, windowMs: 60_000 } },
      ],
    },
    { adapters: [scriptedAdapter] },
  );
  gw = await createApp(config, { log: silentLogger, adapters: [scriptedAdapter] });
  await gw.gateway.describeAgent('other'); // warm routing by site
});
afterAll(() => gw.close());

describe('POST /ask (JSON)', () => {
  it('answers a v0.55 answer with results and a conversation id', async () => {
    const res = await ask('pasta count:3');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = await res.json();
    expect(NlwebResponseSchema.safeParse(body).success).toBe(true);
    expect(body._meta).toMatchObject({ response_type: 'answer', version: '0.55', response_format: 'conversational_search' });
    expect(body.results).toHaveLength(3);
    expect(body._meta.session_context.conversation_id).toMatch(/^conv_[A-Za-z0-9_-]{22}$/);
  });

  it('puts the agent tools on each result as HTTP (webtool) and MCP actions (spec 5)', async () => {
    const body = await (await ask('pasta count:1')).json();
    const actions = body.results[0].actions;
    expect(actions).toContainEqual(expect.objectContaining({ protocol: 'HTTP', method: 'POST', name: 'echo', endpoint: 'http://localhost/webtools/main' }));
    expect(actions).toContainEqual(expect.objectContaining({ protocol: 'MCP', server: 'http://localhost/mcp', tool: 'main__echo' }));
    const events = parseSseText(await (await ask('pasta count:1', {}, { accept: 'text/event-stream' })).text());
    expect((events[1]!.data as { item: { actions: unknown[] } }).item.actions).toHaveLength(2);
  });

  it('renders chatgpt_app as content + structuredData', async () => {
    const body = await (await ask('pasta count:2', { prefer: { response_format: 'chatgpt_app' } })).json();
    expect(body._meta.response_format).toBe('chatgpt_app');
    expect(body.content[0]).toMatchObject({ type: 'text' });
    expect(body.content[0].text).toContain('item 0');
    expect(body.structuredData).toHaveLength(2);
    expect(body.results).toBeUndefined();
  });

  it('accepts the v0.54 alias conv_search and "list,summarize" (and answers a v0.54 request in v0.54)', async () => {
    const body = await (await ask('x', { prefer: { response_format: 'conv_search', mode: 'list,summarize' }, meta: { api_version: '0.54' } })).json();
    expect(body._meta).toMatchObject({ response_type: 'Answer', version: '0.54' });
    const v055 = await (await ask('x', { prefer: { response_format: 'conv_search', mode: 'list,summarize' } })).json();
    expect(v055._meta).toMatchObject({ response_type: 'answer', version: '0.55' });
  });

  it('answers UNSUPPORTED_FORMAT and UNSUPPORTED_MODE as failures', async () => {
    const f = await (await ask('x', { prefer: { response_format: 'pdf' } })).json();
    expect(f.error.code).toBe('UNSUPPORTED_FORMAT');
    const m = await (await ask('x', { prefer: { mode: 'list, dance' } })).json();
    expect(m.error.code).toBe('UNSUPPORTED_MODE');
    expect(m.error.message).toContain('dance');
  });

  it('passes an elicitation and a NO_RESULTS failure through with HTTP 200', async () => {
    const e = await ask('elicit');
    expect(e.status).toBe(200);
    expect((await e.json()).elicitation.questions[0]).toMatchObject({ id: 'sauce', type: 'single_select' });
    const f = await ask('fail');
    expect(f.status).toBe(200);
    expect((await f.json()).error).toMatchObject({ code: 'NO_RESULTS' });
  });

  it('turns an adapter crash into INTERNAL_ERROR without leaking internals', async () => {
    const res = await ask('throw count:3');
    const body = await res.json();
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toContain('secret-internal-detail');
  });

  it('fails with TIMEOUT when the agent exceeds its timeoutMs', async () => {
    const body = await (await post('/agents/other/ask', { query: { text: 'slow:2000' } })).json();
    expect(body.error.code).toBe('TIMEOUT');
    expect(lastCall().aborted).toBe(true);
  });
});

describe('bad input', () => {
  const cases: Array<[string, string]> = [
    ['not JSON', '{"query":'],
    ['an array', '[1,2]'],
    ['a string', '"pasta"'],
    ['no query', '{"prefer":{}}'],
    ['no query.text', '{"query":{"site":"x"}}'],
    ['a number as text', '{"query":{"text":5}}'],
    ['an empty text', '{"query":{"text":"  "}}'],
    ['an empty body', ''],
  ];
  it.each(cases)('answers %s with 400 INVALID_QUERY', async (_name, body) => {
    const res = await post('/ask', body);
    expect(res.status).toBe(400);
    const json = await res.json();
    expect(json._meta).toMatchObject({ response_type: 'failure', version: '0.55' });
    expect(json.error.code).toBe('INVALID_QUERY');
    expect(json.error.message.length).toBeGreaterThan(5);
  });

  it('answers an oversized body with 413 and a failure body', async () => {
    const res = await post('/ask', { query: { text: 'x'.repeat(10_000) } });
    expect(res.status).toBe(413);
    expect((await res.json())._meta.response_type).toBe('failure');
  });

  it('answers unknown routes and agents with JSON failures, not HTML', async () => {
    const res = await post('/nowhere', {});
    expect(res.status).toBe(404);
    expect((await res.json())._meta.response_type).toBe('failure');
    const agent = await post('/agents/ghost/ask', { query: { text: 'x' } });
    expect(agent.status).toBe(404);
    expect((await agent.json()).error.message).toContain('ghost');
  });

  it('answers a CORS preflight for a configured origin only', async () => {
    const pre = (origin: string) =>
      gw.app.request('/ask', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect((await pre('https://shop.example')).headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect((await pre('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a body not declared as JSON with 415 (issue 11: a cross-site simple POST must not reach /ask)', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', undefined]) {
      const res = await gw.app.request('/ask', { method: 'POST', body: '{"query":{"text":"x"}}', headers: type ? { 'content-type': type } : {} });
      expect(res.status, String(type)).toBe(415);
      expect((await res.json()).error.code).toBe('INVALID_QUERY');
    }
    const declared = await gw.app.request('/ask', { method: 'POST', body: '{"query":{"text":"x"}}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(declared.status).toBe(200);
  });
});

describe('POST /ask (SSE)', () => {
  it('streams named events when Accept is text/event-stream', async () => {
    const res = await ask('pasta count:2', {}, { accept: 'text/event-stream' });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSseText(await res.text());
    expect(events.map((e) => e.event)).toEqual(['start', 'result', 'result', 'complete']);
    expect(events[0]!.data).toMatchObject({ _meta: { response_type: 'answer', version: '0.55', streaming: true } });
    expect(events[1]!.data).toMatchObject({ index: 0, item: { name: 'item 0 for pasta count:2' } });
    expect(events[2]!.data).toMatchObject({ index: 1 });
    const complete = events[3]!.data as { _meta: { session_context: { conversation_id: string } } };
    expect(complete._meta.session_context.conversation_id).toMatch(/^conv_/);
  });

  it('streams when prefer.streaming is true, and emits an error event when the agent breaks', async () => {
    const events = parseSseText(await (await ask('throw count:3', { prefer: { streaming: true } })).text());
    expect(events.map((e) => e.event)).toEqual(['start', 'result', 'error', 'complete']);
    expect(events[2]!.data).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
  });

  it('follows an upstream promise to the answer for a streaming client', async () => {
    const events = parseSseText(await (await ask('upstream-promise:2', { prefer: { streaming: true } })).text());
    expect(events.filter((e) => e.event === 'result').map((e) => (e.data as { item: { name: string } }).item.name)).toEqual(['from upstream promise']);
    expect(events.at(-1)!.event).toBe('complete');
  });
});

describe('conversations', () => {
  it('fills context.prev and returns each upstream its own session_context', async () => {
    const first = await (await ask('first question')).json();
    const sc = first._meta.session_context;
    await ask('second question', { meta: { session_context: sc } });
    expect(lastCall().request.context?.prev).toEqual(['first question']);
    expect(lastCall().conversation?.upstreamSession).toEqual({ visits: 1 });
    await ask('third', { meta: { session_context: sc }, context: { prev: ['client says'] } });
    expect(lastCall().request.context?.prev).toEqual(['client says']);
    expect(lastCall().conversation?.upstreamSession).toEqual({ visits: 2 });
  });
});

describe('routing and credentials', () => {
  it('routes by path and by query.site', async () => {
    await post('/agents/other/ask', { query: { text: 'via path' } });
    expect(lastCall().request.query.text).toBe('via path');
    const res = await ask('via site', { query: { text: 'via site', site: 'other.example' } });
    expect(res.status).toBe(200);
  });

  it('requires credentials where configured (401) and forwards them only where configured', async () => {
    const denied = await post('/agents/locked/ask', { query: { text: 'x' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="nlgate"');
    expect((await post('/agents/locked/ask', { query: { text: 'x' } }, { authorization: 'Bearer abc-key-0123456789' })).status).toBe(200);
    expect(lastCall().credentials).toBeUndefined();
    await post('/agents/trusting/ask', { query: { text: 'x' } }, { authorization: 'Bearer abc-key-0123456789' });
    expect(lastCall().credentials).toEqual({ authorization: 'Bearer abc-key-0123456789' });
  });
});

describe('rate limits (spec 2.5)', () => {
  it('answers 429 with Retry-After past the limit, counting each principal separately (never a raw header value)', async () => {
    const call = (auth?: string) => post('/agents/limited/ask', { query: { text: 'x' } }, auth ? { authorization: auth } : {});
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect((await limited.json()).error.code).toBe('RATE_LIMITED');
    // A verified principal has its own bucket; an unknown credential is refused, not a fresh bucket.
    expect((await call('Bearer else-key-0123456789')).status).toBe(200);
    expect((await call('Bearer random-value-1')).status).toBe(401);
  });
});

describe('promises and /await', () => {
  it('answers a slow call with 202 + promise, then the answer on checkin (long-poll)', async () => {
    const res = await ask('slow:400 count:1');
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body._meta.response_type).toBe('promise');
    expect(body.promise.token).toMatch(/^prm_[A-Za-z0-9_-]{22}$/);
    const pending = await (await post('/await', { promise_token: body.promise.token, action: 'checkin' })).json();
    expect(pending._meta.response_type).toBe('promise');
    const done = await (await post('/await', { promise_token: body.promise.token, action: 'checkin', wait_ms: 3000 })).json();
    expect(done._meta.response_type).toBe('answer');
    expect(done.results).toHaveLength(1);
    // Regression: an answer read through /await had lost its conversation.
    expect(done._meta.session_context).toEqual(body._meta.session_context);
    expect(pending._meta.session_context).toEqual(body._meta.session_context);
  });

  it('cancels a running promise: CANCELLED, and the agent call is aborted', async () => {
    const body = await (await ask('slow:3000')).json();
    const call = lastCall();
    const cancelled = await (await post('/await', { promise_token: body.promise.token, action: 'cancel' })).json();
    expect(cancelled.error.code).toBe('CANCELLED');
    await expect.poll(() => call.aborted, { timeout: 2000 }).toBe(true);
    const after = await (await post('/await', { promise_token: body.promise.token, action: 'checkin' })).json();
    expect(after.error.code).toBe('CANCELLED');
  });

  it('reports the agent progress on check-in while the call runs', async () => {
    const { promise } = await (await ask('slow:1200 progress')).json();
    await new Promise((r) => setTimeout(r, 500));
    const pending = await (await post('/await', { promise_token: promise.token, action: 'checkin' })).json();
    expect(pending._meta.response_type).toBe('promise');
    expect(pending.promise.progress).toBeGreaterThanOrEqual(0.25);
    expect(pending.promise.message).toMatch(/^step \d$/);
  });

  it('complete vs cancel at the same instant: every promise ends in exactly one state, seen alike by all', async () => {
    // The calls finish ~20 ms after becoming promises; cancels land around then. Whoever wins,
    // the cancel's answer and every later check-in agree.
    const tokens = await Promise.all(Array.from({ length: 25 }, async () => (await (await ask('slow:170 count:1')).json()).promise.token as string));
    await Promise.all(
      tokens.map(async (token, i) => {
        await new Promise((r) => setTimeout(r, (i % 5) * 4));
        const cancel = await (await post('/await', { promise_token: token, action: 'cancel' })).json();
        const later = await (await post('/await', { promise_token: token, action: 'checkin', wait_ms: 1000 })).json();
        expect(['failure', 'answer']).toContain(cancel._meta.response_type);
        expect(later).toEqual(cancel);
      }),
    );
  });

  it('maps an upstream promise to a gateway token and forwards check-ins', async () => {
    const res = await ask('upstream-promise:2');
    expect(res.status).toBe(202);
    const { promise } = await res.json();
    expect(promise.token).toMatch(/^prm_/);
    const second = await (await post('/await', { promise_token: promise.token, action: 'checkin' })).json();
    expect(second).toMatchObject({ _meta: { response_type: 'promise' }, promise: { token: promise.token, progress: 0.5 } });
    const third = await (await post('/await', { promise_token: promise.token, action: 'checkin' })).json();
    expect(third.results[0].name).toBe('from upstream promise');
    expect(third._meta.session_context.conversation_id).toMatch(/^conv_/);
  });

  it('answers an unknown token with a failure, and a malformed await with 400', async () => {
    const res = await post('/await', { promise_token: 'prm_nope', action: 'checkin' });
    expect(res.status).toBe(200);
    expect((await res.json()).error.message).toMatch(/unknown or expired/i);
    const bad = await post('/await', { promise_token: 'x', action: 'explode' });
    expect(bad.status).toBe(400);
  });
});
