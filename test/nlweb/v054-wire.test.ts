import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogAdapter } from '../../adapters/catalog/index.ts';
import { createApp, type GatewayApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { REPO_ROOT } from '../support/gateway.ts';
import { parseSseText } from '../support/http.ts';
import { readAsV054Client } from '../support/nlweb-v054-client.ts';
import { scriptedAdapter } from '../support/scripted-agent.ts';
import { V054ResponseSchema } from '../../src/protocol/nlweb/index.ts';

/**
 * Issue 17: a request declaring v0.54 is answered in v0.54 (JSON and unnamed `data:` frames) and
 * the official v0.54 client's own parser accepts it; v0.55 requests are answered as before.
 */
let gw: GatewayApp;
const adapters = [catalogAdapter, scriptedAdapter];

beforeAll(async () => {
  const { config } = parseConfig(
    {
      agents: [
        { name: 'recipes', kind: 'catalog', file: join(REPO_ROOT, 'examples/catalog/recipes.jsonl') },
        { name: 'scripted', kind: 'scripted' },
      ],
    },
    { adapters },
  );
  gw = await createApp(config, { log: silentLogger, adapters });
});
afterAll(() => gw.close());

/** What the official client sends (interop.md), with its defaults (site "all", 9 of 50, summaries). */
const clientBody = (text: string, extra: { prev?: string[]; start?: number } = {}) => ({
  query: { text, site: 'all', max_results: 9, num_results: 50 },
  prefer: { streaming: true, response_format: 'conv_search', mode: 'list, summarize' },
  meta: { api_version: '0.54', start_num: extra.start ?? 0 },
  ...(extra.prev ? { context: { '@type': 'ConversationalContext', prev: extra.prev } } : {}),
});
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  gw.app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const stream = (body: unknown, path = '/ask') => post(path, body, { accept: 'text/event-stream' });

describe('v0.54 streams (what the official client reads)', () => {
  it('regression: "curry" with site "all" gives the client its result cards and the summary', async () => {
    const res = await stream(clientBody('curry'));
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).not.toMatch(/^event:/m); // unnamed frames only
    const frames = parseSseText(text).map((f) => f.data as Record<string, unknown>);
    expect(frames[0]).toEqual({
      _meta: { response_type: 'Answer', response_format: 'conversational_search', version: '0.54', session_context: { conversation_id: expect.any(String) } },
    });
    expect(frames.slice(1).every((f) => Array.isArray(f.results))).toBe(true);
    const view = await readAsV054Client(text);
    expect(view.results.length).toBeGreaterThanOrEqual(3);
    expect(view.summary).toMatch(/^Found 3 recipes for "curry"/);
    expect(view.dropped).toEqual([]);
    expect(view.failures).toEqual([]);
  });

  it('regression: max_results is the number returned, num_results the depth (9 of 50, not 50)', async () => {
    const view = await readAsV054Client(await (await stream(clientBody('vegan'))).text());
    expect(view.results).toHaveLength(9);
    const page2 = await readAsV054Client(await (await stream(clientBody('vegan', { start: 9 }))).text());
    expect(page2.results.length).toBeGreaterThan(0);
    expect(page2.results.map((r) => r['@id'])).not.toContain(view.results[0]!['@id']);
  });

  it('regression: a follow-up states its decontextualised query, and its next page is the same search', async () => {
    const text = await (await stream(clientBody('vegan?', { prev: ['curry'] }))).text();
    const view = await readAsV054Client(text);
    expect(view.decontextualizedQuery).toBe('vegan curry');
    expect(view.results[0]!.name).toBe('15-Minute Chickpea and Spinach Curry');
    // The client asks the next page with the decontextualised query and no history.
    const direct = await readAsV054Client(await (await stream(clientBody('vegan curry'))).text());
    expect(direct.results.map((r) => r['@id'])).toEqual(view.results.map((r) => r['@id']));
  });

  it('regression: a failure is a "Failure" frame the client reports, and nothing else breaks', async () => {
    const text = await (await stream({ ...clientBody('fail'), query: { text: 'fail', site: 'scripted' } })).text();
    const view = await readAsV054Client(text);
    expect(view.failures).toEqual([expect.stringMatching(/^Error \(NO_RESULTS\): /)]);
    expect(view.badLines).toEqual([]);
    const none = await readAsV054Client(await (await stream(clientBody('xylophone'))).text());
    expect(none.failures).toEqual([expect.stringMatching(/^Error \(NO_RESULTS\): /)]);
  });

  it('an elicitation is one v0.54 frame with _meta Elicitation', async () => {
    const frames = parseSseText(await (await stream({ query: { text: 'elicit', site: 'scripted' }, meta: { version: '0.54' } })).text());
    expect(frames.at(-1)!.data).toMatchObject({ _meta: { response_type: 'Elicitation', version: '0.54' }, elicitation: { text: 'Which sauce?' } });
  });
});

describe('v0.54 JSON', () => {
  it('is one object: _meta (Answer, 0.54), results with the summary as a Summary item', async () => {
    const body = await (await post('/ask', { query: { text: 'pasta', max_results: 3 }, prefer: { mode: 'list, summarize' }, meta: { version: '0.54' } })).json();
    expect(V054ResponseSchema.safeParse(body).success).toBe(true);
    expect(body._meta).toMatchObject({ response_type: 'Answer', version: '0.54' });
    expect(body.results[0]).toEqual({ '@type': 'Summary', text: expect.stringMatching(/^Found \d+ recipes/) });
    expect(body.results.slice(1)).toHaveLength(3);
    expect(body.results.slice(1).every((r: { score: number }) => r.score > 0 && r.score <= 100)).toBe(true);
  });

  it('answers failures and refused requests with a capitalised Failure', async () => {
    const none = await post('/ask', { query: { text: 'xylophone' }, meta: { api_version: '0.54' } });
    expect(none.status).toBe(200);
    expect(await none.json()).toMatchObject({ _meta: { response_type: 'Failure', version: '0.54' }, error: { code: 'NO_RESULTS' } });
    const refused = await post('/ask', { query: {}, meta: { api_version: '0.54' } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ _meta: { response_type: 'Failure', version: '0.54' }, error: { code: 'INVALID_QUERY' } });
  });

  it('takes the version from meta.version or meta.api_version, string or number; 0.55 and none stay v0.55', async () => {
    for (const meta of [{ version: '0.54' }, { api_version: '0.54' }, { api_version: 0.54 }]) {
      expect((await (await post('/ask', { query: { text: 'pasta' }, meta })).json())._meta.version).toBe('0.54');
    }
    for (const meta of [{ version: '0.55' }, {}, { version: 'banana' }]) {
      expect((await (await post('/ask', { query: { text: 'pasta' }, meta })).json())._meta).toMatchObject({ response_type: 'answer', version: '0.55' });
    }
  });
});

describe('v0.55 keeps its shape, with the decontextualised query too', () => {
  it('streams named events; a follow-up carries _meta.decontextualized_query on start', async () => {
    const events = parseSseText(await (await stream({ query: { text: 'vegan?' }, context: { prev: ['curry'] } })).text());
    expect(events[0]).toMatchObject({ event: 'start', data: { _meta: { response_type: 'answer', version: '0.55', decontextualized_query: 'vegan curry' } } });
    expect(events[1]).toMatchObject({ event: 'result', data: { index: 0, item: { name: '15-Minute Chickpea and Spinach Curry', score: 100 } } });
    expect(events.at(-1)!.event).toBe('complete');
    const json = await (await post('/ask', { query: { text: 'vegan?' }, context: { prev: ['curry'] } })).json();
    expect(json._meta.decontextualized_query).toBe('vegan curry');
  });

  it('site "all" searches every site on POST /ask (was NO_RESULTS)', async () => {
    const body = await (await post('/ask', { query: { text: 'curry', site: 'all' } })).json();
    expect(body._meta.response_type).toBe('answer');
    expect(body.results.length).toBeGreaterThanOrEqual(3);
  });
});
