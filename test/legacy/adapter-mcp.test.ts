import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askAll, callContext, legacyAgent, resultsOf } from './helpers.ts';
import { startLegacyServer, type LegacyServer } from './legacy-server.ts';

let A: LegacyServer;
let C: LegacyServer;
beforeAll(async () => {
  [A, C] = await Promise.all([startLegacyServer('A'), startLegacyServer('C')]);
});
afterAll(async () => {
  await Promise.all([A.close(), C.close()]);
});

describe('nlweb-legacy over the mid-2025 /mcp (function_call)', () => {
  it('streams function_stream_event frames into results, with prev riding on the query string', async () => {
    const agent = legacyAgent({ url: A.url, transport: 'mcp', generation: 'A' });
    const events = await askAll(agent, { query: { text: 'apple tart', site: 'seriouseats' }, prefer: { mode: 'summarize' } }, callContext(['pies']));
    const rec = A.asks().at(-1)!;
    expect(rec.path).toBe('/mcp');
    const call = (rec.body as { function_call: { name: string; arguments: string } }).function_call;
    expect(call.name).toBe('ask');
    expect(JSON.parse(call.arguments)).toMatchObject({ query: 'apple tart', site: 'seriouseats', streaming: true, generate_mode: 'summarize' });
    expect(rec.read!.prev).toEqual(['pies']);
    expect(resultsOf(events).map((r) => r['@type'])).toEqual(['Recipe', 'Recipe', 'SearchSummary']);
    expect(events.at(-1)).toEqual({ type: 'complete', meta: { decontextualized_query: 'pies / apple tart' } });
  });

  it('reads the non-streaming function_response envelope', async () => {
    const events = await askAll(legacyAgent({ url: A.url, transport: 'mcp', generation: 'B', streaming: false }), { query: { text: 'scones' } });
    expect(resultsOf(events).map((r) => r.name)).toEqual(['scones #1', 'scones #2']);
  });

  it('auto: an initialize probe refused as a function_response picks the function_call dialect', async () => {
    const events = await askAll(legacyAgent({ url: A.url, transport: 'mcp' }), { query: { text: 'bread' } });
    expect(resultsOf(events)).toHaveLength(2);
    const mcpCalls = A.requests.filter((r) => r.path === '/mcp').slice(-2);
    expect((mcpCalls[0]!.body as { method?: string }).method).toBe('initialize');
    expect(mcpCalls[1]!.body).toHaveProperty('function_call');
  });
});

describe('nlweb-legacy over the late-2025 /mcp (JSON-RPC, frames concatenated in one text item)', () => {
  it('shakes hands, calls ask_nlweb with a site array and splits the concatenated frames', async () => {
    const agent = legacyAgent({ url: C.url, transport: 'mcp', generation: 'C' });
    const events = await askAll(agent, { query: { text: 'soup {hot}', site: 'seriouseats' }, prefer: { mode: 'summarize' } }, callContext(['winter']));
    const methods = C.requests.filter((r) => r.path === '/mcp').map((r) => (r.body as { method: string }).method);
    expect(methods.slice(0, 3)).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    const call = C.asks().at(-1)!;
    expect(call.body).toMatchObject({ method: 'tools/call', params: { name: 'ask_nlweb', arguments: { query: 'soup {hot}', site: ['seriouseats'], generate_mode: 'summarize' } } });
    expect(call.read!.prev).toEqual(['winter']);
    const results = resultsOf(events);
    expect(results.map((r) => r['@type'])).toEqual(['Recipe', 'Recipe', 'SearchSummary']);
    expect(results[0]!.name).toBe('winter / soup {hot} #1');
    expect(events.at(-1)).toEqual({ type: 'complete', meta: { decontextualized_query: 'winter / soup {hot}' } });
  });

  it('shakes hands again when a restarted server has forgotten it', async () => {
    const agent = legacyAgent({ url: C.url, transport: 'mcp', generation: 'C' });
    await askAll(agent, { query: { text: 'one' } });
    C.forgetInitialized();
    const events = await askAll(agent, { query: { text: 'two' } });
    expect(resultsOf(events)).toHaveLength(2);
  });

  it('error and no_results frames inside the text item become error events', async () => {
    const agent = legacyAgent({ url: C.url, transport: 'mcp' });
    expect((await askAll(agent, { query: { text: 'error' } })).find((e) => e.type === 'error')).toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect((await askAll(agent, { query: { text: 'nothing' } })).find((e) => e.type === 'error')).toMatchObject({ code: 'NO_RESULTS' });
  });

  it('describe() takes the sites from the list_sites tool', async () => {
    const before = C.requests.filter((r) => r.path === '/sites').length;
    const d = await legacyAgent({ url: C.url, transport: 'mcp' }).describe();
    expect(d.sites).toEqual(['seriouseats', 'npr podcasts']);
    expect(C.requests.filter((r) => r.path === '/sites').length).toBe(before);
  });

  it('a server without /mcp is an UPSTREAM_ERROR naming only the status', async () => {
    const err = await askAll(legacyAgent({ url: `${C.url}/nowhere`, transport: 'mcp' }), { query: { text: 'x' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'Agent "old" answered HTTP 404' });
  });

  it('configured sites skip the lookup', async () => {
    const count = C.requests.length;
    expect((await legacyAgent({ url: C.url, sites: ['mine'] }).describe()).sites).toEqual(['mine']);
    expect(C.requests.length).toBe(count);
  });
});
