import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSseText } from '../support/http.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';
import { startLegacyServer, type LegacyServer } from './legacy-server.ts';

/** Old clients: chat pages and scripts that send `GET /ask?query=...` and read `data:` frames by `message_type`. */
let A: LegacyServer;
let C: LegacyServer;
let gw: TestGateway;

beforeAll(async () => {
  [A, C] = await Promise.all([startLegacyServer('A'), startLegacyServer('C')]);
  gw = await startGateway({
    agents: [
      { name: 'modern', kind: 'scripted' },
      { name: 'old-a', kind: 'nlweb-legacy', url: A.url, generation: 'A', sites: ['a-only'] },
      { name: 'old-c', kind: 'nlweb-legacy', url: C.url },
    ],
  });
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([A?.close(), C?.close()]);
});

const get = (path: string) => fetch(`${gw.url}${path}`);
type Frame = Record<string, any>;
async function frames(path: string): Promise<{ raw: string; frames: Frame[] }> {
  const res = await get(path);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const raw = await res.text();
  return { raw, frames: parseSseText(raw).map((e) => e.data as Frame) };
}
const types = (fs: Frame[]) => fs.map((f) => f.message_type);

describe('legacy clients in front of a v0.55 agent (scripted)', () => {
  it('GET /ask streams begin-nlweb-response, results with content, end-nlweb-response, data lines only', async () => {
    const { raw, frames: fs } = await frames('/agents/modern/ask?query=pasta&generate_mode=list&query_id=q42');
    expect(raw).not.toMatch(/^event:/m);
    expect(types(fs)).toEqual(['begin-nlweb-response', 'result', 'result', 'end-nlweb-response']);
    expect(fs[0]).toMatchObject({ query: 'pasta', query_id: 'q42', conversation_id: expect.stringMatching(/^conv_/) });
    expect(fs[1]!.content[0]).toMatchObject({ '@type': 'Item', name: 'item 0 for pasta', site: 'scripted', schema_object: { '@type': 'Thing', '@id': 'urn:item:0' } });
  });

  it('streaming=false answers the object shape', async () => {
    const body = (await (await get('/agents/modern/ask?query=soup&streaming=false&query_id=q1')).json()) as Frame;
    expect(body).toMatchObject({ query: 'soup', query_id: 'q1', conversation_id: expect.any(String) });
    expect(body.results.map((r: Frame) => r.name)).toEqual(['item 0 for soup', 'item 1 for soup']);
  });

  it('prev and conversation_id carry the conversation to the agent', async () => {
    await get('/agents/modern/ask?query=third&prev=first,second&streaming=false');
    expect(scriptedCalls.at(-1)!.request.context?.prev).toEqual(['first', 'second']);
    const { frames: fs } = await frames('/agents/modern/ask?query=one');
    const conversationId = fs[0]!.conversation_id as string;
    await frames(`/agents/modern/ask?query=two&conversation_id=${conversationId}`);
    expect(scriptedCalls.at(-1)!.request.context?.prev).toEqual(['one']);
  });

  it('an elicitation is ask_user, NO_RESULTS is no_results, a crash ends with error:true then error', async () => {
    const ask = await frames('/agents/modern/ask?query=elicit');
    expect(ask.frames.find((f) => f.message_type === 'ask_user')).toMatchObject({ message: 'Which sauce?\n- Sauce? (tomato, cream)' });
    expect(types((await frames('/agents/modern/ask?query=fail')).frames)).toEqual(['begin-nlweb-response', 'no_results', 'end-nlweb-response']);
    const crash = await frames('/agents/modern/ask?query=throw');
    expect(types(crash.frames).slice(-2)).toEqual(['end-nlweb-response', 'error']);
    expect(crash.frames.at(-2)).toMatchObject({ error: true });
    expect(crash.frames.at(-1)).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    expect(crash.raw).not.toContain('secret-internal-detail');
  });

  it('a slow agent is waited for: old clients get an answer, never a promise', async () => {
    const body = (await (await get('/agents/modern/ask?query=slow:300&streaming=false')).json()) as Frame;
    expect(body.results).toHaveLength(2);
  });
});

describe('legacy clients in front of legacy servers (a replaced server keeps its front end working)', () => {
  it.each(['old-a', 'old-c'])('%s: the old wire format comes back, with the decontextualized query', async (agent) => {
    await get(`/agents/${agent}/ask?query=pumpkin%20pie&streaming=false`);
    const { frames: fs } = await frames(`/agents/${agent}/ask?query=vegan&prev=pumpkin%20pie&generate_mode=summarize`);
    expect(types(fs)[0]).toBe('begin-nlweb-response');
    expect(fs.find((f) => f.message_type === 'decontextualized_query')).toMatchObject({ decontextualized_query: 'pumpkin pie / vegan', original_query: 'vegan' });
    const results = fs.filter((f) => f.message_type === 'result');
    expect(results.filter((f) => Array.isArray(f.content)).map((f) => f.content[0].name)).toEqual(['pumpkin pie / vegan #1', 'pumpkin pie / vegan #2']);
    expect(results.find((f) => f['@type'] === 'Summary')).toMatchObject({ content: 'Two recipes for pumpkin pie / vegan.' });
    expect(types(fs).at(-1)).toBe('end-nlweb-response');
  });
});

describe('legacy GET /sites and malformed requests', () => {
  it('GET /sites lists every agent\'s sites with the hyphenated message-type; per agent, its own', async () => {
    await gw.gateway.describeAgent('old-c');
    const all = (await (await get('/sites')).json()) as Frame;
    expect(all['message-type']).toBe('sites');
    expect(all.sites).toEqual(expect.arrayContaining(['modern.example', 'a-only', 'seriouseats', 'npr podcasts']));
    expect(await (await get('/agents/old-c/sites')).json()).toEqual({ 'message-type': 'sites', sites: ['seriouseats', 'npr podcasts'] });
  });

  it('routes site= to the agent that lists the site', async () => {
    const before = C.asks().length;
    const body = (await (await get('/ask?query=pods&site=npr%20podcasts&streaming=false')).json()) as Frame;
    expect(body.results).toHaveLength(2);
    expect(C.asks().length).toBe(before + 1);
  });

  it('a missing query is a 400 legacy error, not an HTML page', async () => {
    const res = await get('/ask?site=x');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message_type: 'error', code: 'INVALID_QUERY', status: 400, error: expect.stringContaining('query') });
    const unknown = await get('/agents/nobody/ask?query=x');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ message_type: 'error', status: 404 });
  });

  it('POST /ask with a v0.55 body keeps the v0.55 answer', async () => {
    const res = await fetch(`${gw.url}/agents/modern/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } }) });
    expect(await res.json()).toMatchObject({ _meta: { response_type: 'answer', version: '0.55' }, results: [{ '@id': 'urn:item:0' }, { '@id': 'urn:item:1' }] });
  });
});
