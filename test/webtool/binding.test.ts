/**
 * The webtool binding's own behaviour beyond the conformance suite: conversations by sessionId,
 * promises through `await`, NO_RESULTS, authentication, config defaults, tool failures, versions.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { webtoolAdapter } from '../../adapters/webtool/index.ts';
import { SESSION_KIND, sessionHandle } from '../../src/bindings/webtool-http/execute.ts';
import type { AdapterFactory } from '../../src/core/agent.ts';
import { anonymousPrincipal } from '../../src/core/principal.ts';
import { ErrorEnvelopeSchema, OkEnvelopeSchema } from '../../src/protocol/webtool/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { scriptedAdapter, scriptedCalls } from '../support/scripted-agent.ts';
import { startKitchen, type KitchenUpstream } from './kitchen-upstream.ts';

const adapters = [...builtinAdapters, webtoolAdapter, scriptedAdapter].filter((a, i, all) => all.findIndex((b) => b.kind === a.kind) === i) as AdapterFactory<any>[];

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

let gw: TestGateway;
let kitchen: KitchenUpstream;
beforeAll(async () => {
  kitchen = await startKitchen();
  gw = await startGateway(
    {
      defaults: { promiseAfterMs: 100 },
      auth: {
        apiKeys: [
          { principal: 'alice', key: 'alice-key-0123456789' },
          { principal: 'mallory', key: 'mallory-key-0123456789' },
          { principal: 't', key: 't-key-0123456789abcdef' },
        ],
      },
      agents: [
        { name: 'bot', kind: 'scripted' },
        { name: 'locked', kind: 'scripted', requireAuth: true },
        { name: 'kitchen', kind: 'webtool', url: kitchen.webtoolUrl },
      ],
    },
    { adapters },
  );
});
afterAll(async () => {
  await gw?.close();
  await kitchen?.close();
});

describe('webtool binding', () => {
  it('the same sessionId continues the conversation: the agent sees the previous queries', async () => {
    const url = `${gw.url}/webtools/bot`;
    await post(url, { sessionId: 'cook-1-session-0001', action: 'ask', request: { query: { text: 'count:1 pasta' } } });
    await post(url, { sessionId: 'cook-1-session-0001', action: 'ask', request: { query: { text: 'count:1 vegetarian' } } });
    expect(scriptedCalls.at(-1)!.request.context?.prev).toEqual(['count:1 pasta']);
    await post(url, { sessionId: 'cook-2-session-0002', action: 'ask', request: { query: { text: 'count:1 soup' } } });
    expect(scriptedCalls.at(-1)!.request.context?.prev ?? []).toEqual([]);
  });

  it('regression "two first requests of one new sessionId at once started two conversations": both turns are in the one conversation', async () => {
    const url = `${gw.url}/webtools/bot`;
    const first = await Promise.all(['count:1 slow:50 first', 'count:1 slow:50 second'].map((text) => post(url, { sessionId: 'at-once-session-0001', action: 'ask', request: { query: { text } } })));
    const ids = first.map((r) => r.body.data._meta.session_context.conversation_id);
    expect(ids[0]).toBe(ids[1]);
    await post(url, { sessionId: 'at-once-session-0001', action: 'ask', request: { query: { text: 'count:1 third' } } });
    expect([...scriptedCalls.at(-1)!.request.context!.prev!].sort()).toEqual(['count:1 slow:50 first', 'count:1 slow:50 second']);
  });

  it('a session an earlier release bound through an alias keeps its conversation', async () => {
    const nlweb = await post(`${gw.url}/agents/bot/ask`, { query: { text: 'count:1 before the upgrade' } });
    const conversationId = nlweb.body._meta.session_context.conversation_id as string;
    await gw.gateway.bindConversation(SESSION_KIND, sessionHandle('bot', 'bound-before-0001'), conversationId, anonymousPrincipal('127.0.0.1'));
    const res = await post(`${gw.url}/webtools/bot`, { sessionId: 'bound-before-0001', action: 'ask', request: { query: { text: 'count:1 after' } } });
    expect(res.body.data._meta.session_context.conversation_id).toBe(conversationId);
    expect(scriptedCalls.at(-1)!.request.context?.prev).toEqual(['count:1 before the upgrade']);
  });

  it('a sessionId shorter than 16 characters is refused with SCHEMA_ERROR saying the minimum', async () => {
    const res = await post(`${gw.url}/webtools/bot`, { sessionId: 'cook-1', action: 'ask', request: { query: { text: 'count:1' } } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', error: { code: 'SCHEMA_ERROR', message: expect.stringContaining('at least 16 characters') } });
  });

  it('config.num_results becomes the ask default, a request value wins', async () => {
    const url = `${gw.url}/webtools/bot`;
    await post(url, { action: 'ask', config: { num_results: 3 }, request: { query: { text: 'count:1' } } });
    expect(scriptedCalls.at(-1)!.request.query.num_results).toBe(3);
    await post(url, { action: 'ask', config: { num_results: 3 }, request: { query: { text: 'count:1', num_results: 7 } } });
    expect(scriptedCalls.at(-1)!.request.query.num_results).toBe(7);
  });

  it('a slow ask answers with a promise in data; the await action returns the answer', async () => {
    const url = `${gw.url}/webtools/bot`;
    const first = await post(url, { action: 'ask', request: { query: { text: 'slow:400 count:2' } } });
    expect(first.status).toBe(200);
    expect(first.body.data._meta.response_type).toBe('promise');
    const token = first.body.data.promise.token as string;
    const done = await post(url, { action: 'await', request: { promise_token: token, action: 'checkin', wait_ms: 3000 } });
    expect(done.body).toMatchObject({ status: 'ok', data: { _meta: { response_type: 'answer' } } });
    expect(done.body.data.results).toHaveLength(2);
  });

  it('regression: cancelling a promise through the await action is a CANCELLED error (422), not an internal error (500)', async () => {
    const url = `${gw.url}/webtools/bot`;
    const first = await post(url, { action: 'ask', request: { query: { text: 'slow:2000 count:1' } } });
    const token = first.body.data.promise.token as string;
    const cancelled = await post(url, { action: 'await', request: { promise_token: token, action: 'cancel' } });
    expect(cancelled.status).toBe(422);
    expect(cancelled.body).toMatchObject({ status: 'error', error: { code: 'CANCELLED' } });
  });

  it('NO_RESULTS is a normal outcome: status ok with the failure in data', async () => {
    const r = await post(`${gw.url}/webtools/bot`, { action: 'ask', request: { query: { text: 'fail' } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', data: { _meta: { response_type: 'failure' }, error: { code: 'NO_RESULTS' } } });
  });

  it('an agent failing mid-stream is 500 INTERNAL_ERROR without its internals', async () => {
    const r = await post(`${gw.url}/webtools/bot`, { action: 'ask', request: { query: { text: 'throw' } } });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(r.body)).not.toContain('secret-internal-detail');
  });

  it('an agent that requires authentication: 401 without Authorization, served with it', async () => {
    const url = `${gw.url}/webtools/locked`;
    const denied = await post(url, { action: 'ask', request: { query: { text: 'count:1' } } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="nlgate"');
    expect(denied.body.status).toBe('error');
    const ok = await post(url, { action: 'echo', request: { say: 'hi' } }, { authorization: 'Bearer t-key-0123456789abcdef' });
    expect(ok.body).toEqual({ status: 'ok', data: { tool: 'echo', args: { say: 'hi' } } });
  });

  it('a tool failure with its own code keeps the code (422)', async () => {
    const r = await post(`${gw.url}/webtools/kitchen`, { action: 'convert', request: { amount: 1, from: 'cup', to: 'g' } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ status: 'error', error: { code: 'INCOMPATIBLE_UNITS', message: 'Cannot convert volume (cup) to mass (g)' } });
  });

  it('publishes an upstream webtool action with its schemas', async () => {
    const m = (await (await fetch(`${gw.url}/webtools/kitchen`)).json()) as any;
    const convert = m.actions.find((a: { name: string }) => a.name === 'convert');
    const upstream = (await (await fetch(kitchen.webtoolUrl)).json()) as any;
    expect(convert.requestSchema).toEqual(upstream.actions[0].requestSchema);
    expect(convert.responseSchema).toEqual(upstream.actions[0].responseSchema);
  });

  it('the version is a fingerprint: two replicas agree, different actions give a different version', async () => {
    const version = async (g: TestGateway, agent: string) => ((await (await fetch(`${g.url}/webtools/${agent}`)).json()) as any).version as string;
    const replica = await startGateway({ agents: [{ name: 'kitchen', kind: 'webtool', url: kitchen.webtoolUrl }, { name: 'bot', kind: 'scripted' }] }, { adapters });
    const pinned = await startGateway({ agents: [{ name: 'kitchen', kind: 'webtool', url: kitchen.webtoolUrl, version: '1.0.0' }] }, { adapters });
    try {
      const v = await version(gw, 'kitchen');
      expect(v).toMatch(/^1\.0\.0\+h\.[0-9a-f]{12}$/);
      expect(await version(replica, 'kitchen')).toBe(v);
      expect(await version(pinned, 'kitchen')).not.toBe(v);
    } finally {
      await replica.close();
      await pinned.close();
    }
  });

  it('property: any body gets a JSON webtool envelope with a matching status, never a crash', async () => {
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ action: fc.constantFrom('ask', 'await', 'echo', 'nope', ''), request: fc.jsonValue({ maxDepth: 3 }), config: fc.jsonValue({ maxDepth: 2 }), sessionId: fc.jsonValue({ maxDepth: 1 }), version: fc.string() }, { requiredKeys: ['action'] }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await gw.app.request('/webtools/bot', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const json = await res.json();
        if (res.status === 200) expect(OkEnvelopeSchema.safeParse(json).success).toBe(true);
        else {
          expect([400, 404, 422, 500]).toContain(res.status);
          expect(ErrorEnvelopeSchema.safeParse(json).success).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});
