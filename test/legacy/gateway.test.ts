import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSseText } from '../support/http.ts';
import { readAsV054Client } from '../support/nlweb-v054-client.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startLegacyServer, type LegacyServer } from './legacy-server.ts';
import type { Generation } from './scripts.ts';

const servers = {} as Record<Generation, LegacyServer>;
let gw: TestGateway;

beforeAll(async () => {
  for (const g of ['A', 'B', 'C'] as const) servers[g] = await startLegacyServer(g);
  gw = await startGateway({
    defaults: { promiseAfterMs: 5_000 },
    agents: [
      // The default agent lists a site of its own, so `query.site` routing to the others is visible.
      { name: 'old-a', kind: 'nlweb-legacy', url: servers.A.url, generation: 'A', sites: ['a-only'] },
      { name: 'old-b', kind: 'nlweb-legacy', url: servers.B.url, method: 'POST', sites: ['b-only'] },
      { name: 'old-c', kind: 'nlweb-legacy', url: servers.C.url },
      { name: 'old-a-mcp', kind: 'nlweb-legacy', url: servers.A.url, transport: 'mcp', sites: ['a-mcp'] },
      { name: 'old-c-mcp', kind: 'nlweb-legacy', url: servers.C.url, transport: 'mcp', sites: ['c-mcp'] },
      { name: 'old-slow', kind: 'nlweb-legacy', url: servers.C.url, promiseAfterMs: 150, sites: ['slow'] },
    ],
  });
});
afterAll(async () => {
  await gw?.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const AGENTS: Array<[string, Generation]> = [['old-a', 'A'], ['old-b', 'B'], ['old-c', 'C'], ['old-a-mcp', 'A'], ['old-c-mcp', 'C']];

describe.each(AGENTS)('v0.55 /ask in front of legacy agent %s (generation %s)', (agent, gen) => {
  it('answers JSON: a two-turn conversation sends the first query upstream as prev', async () => {
    const first = await post(`/agents/${agent}/ask`, { query: { text: 'pumpkin pie' }, prefer: { streaming: false } });
    expect(first.status).toBe(200);
    const one = (await first.json()) as { _meta: Record<string, any>; results: Array<Record<string, unknown>> };
    expect(one._meta).toMatchObject({ response_type: 'answer', version: '0.55' });
    expect(one.results.map((r) => r['@type'])).toEqual(['Recipe', 'Recipe']);
    expect(one.results[0]).toMatchObject({ '@id': expect.any(String), score: 85, site: 'seriouseats' });
    const conversationId = one._meta.session_context.conversation_id as string;

    const second = await post(`/agents/${agent}/ask`, {
      query: { text: 'vegan ones?' },
      prefer: { streaming: false },
      meta: { session_context: { conversation_id: conversationId } },
    });
    const two = (await second.json()) as { _meta: Record<string, any>; results: Array<Record<string, unknown>> };
    expect(servers[gen].asks().at(-1)!.read!.prev).toEqual(['pumpkin pie']);
    expect(two._meta.decontextualized_query).toBe('pumpkin pie / vegan ones?');
    expect(two.results[0]!.name).toBe('pumpkin pie / vegan ones? #1');
  });

  it('answers a v0.54 client in v0.54 frames, passing the upstream decontextualised query through (issue 17)', async () => {
    const body = { query: { text: 'vegan ones?' }, context: { prev: ['pumpkin pie'] }, prefer: { streaming: true, mode: 'list, summarize' }, meta: { api_version: '0.54' } };
    const view = await readAsV054Client(await (await post(`/agents/${agent}/ask`, body, { accept: 'text/event-stream' })).text());
    expect(view.decontextualizedQuery).toBe('pumpkin pie / vegan ones?');
    expect(view.results.map((r) => r.name)).toEqual(['pumpkin pie / vegan ones? #1', 'pumpkin pie / vegan ones? #2']);
    expect(view.summary).toBe('Two recipes for pumpkin pie / vegan ones?.');
    expect(view.failures).toEqual([]);
  });

  it('answers SSE with named v0.55 events, summaries as SearchSummary items', async () => {
    const res = await post(`/agents/${agent}/ask`, { query: { text: 'apple crumble' }, prefer: { streaming: true, mode: 'list, summarize' } }, { accept: 'text/event-stream' });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSseText(await res.text());
    expect(events[0]!.event).toBe('start');
    expect(events.at(-1)!.event).toBe('complete');
    const items = events.filter((e) => e.event === 'result').map((e) => (e.data as { item: Record<string, unknown> }).item);
    expect(items.map((i) => i['@type']).sort()).toEqual(['Recipe', 'Recipe', 'SearchSummary']);
    expect(items.find((i) => i['@type'] === 'SearchSummary')!.text).toBe('Two recipes for apple crumble.');
  });

  it('turns an upstream error frame into a v0.55 failure without leaking it', async () => {
    const body = await (await post(`/agents/${agent}/ask`, { query: { text: 'error now' }, prefer: { streaming: false } })).json();
    expect(body).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'INTERNAL_ERROR' } });
    expect(JSON.stringify(body)).not.toMatch(/Traceback|srv|127\.0\.0\.1/);
  });

  it('turns no_results into NO_RESULTS and ask_user into an elicitation', async () => {
    const none = await (await post(`/agents/${agent}/ask`, { query: { text: 'nothing at all' }, prefer: { streaming: false } })).json();
    expect(none).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'NO_RESULTS' } });
    const ask = await (await post(`/agents/${agent}/ask`, { query: { text: 'which one' }, prefer: { streaming: false } })).json();
    expect(ask).toMatchObject({ _meta: { response_type: 'elicitation' }, elicitation: { text: 'Which kind of pie do you mean?' } });
  });
});

describe('gateway routing and promises for legacy agents', () => {
  it('routes query.site to the legacy agent whose GET /sites lists it', async () => {
    await gw.gateway.describeAgent('old-c');
    const before = servers.C.asks().length;
    const body = (await (await post('/ask', { query: { text: 'podcasts about pie', site: 'npr podcasts' }, prefer: { streaming: false } })).json()) as { results: unknown[] };
    expect(body.results).toHaveLength(2);
    expect(servers.C.asks().length).toBe(before + 1);
    expect(servers.C.asks().at(-1)!.query.site).toEqual(['npr podcasts']);
  });

  it('a slow legacy server becomes a v0.55 promise: 202 from /ask, then /await gives the answer', async () => {
    const res = await post('/agents/old-slow/ask', { query: { text: 'slow roast' }, prefer: { streaming: false } });
    expect(res.status).toBe(202);
    const promise = (await res.json()) as { _meta: { response_type: string }; promise: { token: string } };
    expect(promise._meta.response_type).toBe('promise');
    const done = await post('/await', { promise_token: promise.promise.token, action: 'checkin', wait_ms: 5_000 });
    const answer = (await done.json()) as { _meta: { response_type: string }; results: Array<{ name: string }> };
    expect(answer._meta.response_type).toBe('answer');
    expect(answer.results.map((r) => r.name)).toEqual(['slow roast #1', 'slow roast #2']);
  });

  it('an unreachable legacy server is a clean failure naming no URL', async () => {
    const dead = await startLegacyServer('A');
    const url = dead.url;
    await dead.close();
    const g = await startGateway({ agents: [{ name: 'gone', kind: 'nlweb-legacy', url }] });
    try {
      const body = await (await fetch(`${g.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'pie' }, prefer: { streaming: false } }) })).json();
      expect(body).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'INTERNAL_ERROR' } });
      expect(JSON.stringify(body)).not.toContain(url);
    } finally {
      await g.close();
    }
  });
});
