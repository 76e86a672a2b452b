import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/base/errors.ts';
import { ResultItemSchema } from '../../src/protocol/nlweb/index.ts';
import { askAll, callContext, legacyAgent, resultsOf } from './helpers.ts';
import { startLegacyServer, type LegacyServer } from './legacy-server.ts';
import type { Generation } from './scripts.ts';

const servers = {} as Record<Generation, LegacyServer>;
beforeAll(async () => {
  for (const g of ['A', 'B', 'C'] as const) servers[g] = await startLegacyServer(g);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

describe.each(['A', 'B', 'C'] as const)('nlweb-legacy over /ask, generation %s', (gen) => {
  const agent = () => legacyAgent({ url: servers[gen].url, generation: gen });

  it('streams typed schema.org results between start and complete, with a GET query string', async () => {
    const events = await askAll(agent(), { query: { text: 'pumpkin pie', site: 'seriouseats' } });
    expect(events[0]!.type).toBe('start');
    expect(events.at(-1)!.type).toBe('complete');
    const results = resultsOf(events);
    expect(results).toHaveLength(2);
    for (const r of results) expect(ResultItemSchema.safeParse(r).success).toBe(true);
    expect(results[0]).toMatchObject({ '@type': 'Recipe', '@id': expect.stringContaining('seriouseats.com/1'), site: 'seriouseats', score: 85, recipeYield: '3 servings' });
    const last = servers[gen].asks().at(-1)!;
    expect(last.method).toBe('GET');
    expect(last.query).toMatchObject({ query: ['pumpkin pie'], site: ['seriouseats'], generate_mode: ['list'], mode: ['list'], streaming: ['true'] });
  });

  it('two turns: the second request carries the first query as prev and gets its decontextualized query in _meta', async () => {
    const a = agent();
    await askAll(a, { query: { text: 'pumpkin pie' } }, callContext([]));
    const events = await askAll(a, { query: { text: 'vegan ones?' } }, callContext(['pumpkin pie']));
    expect(servers[gen].asks().at(-1)!.read!.prev).toEqual(['pumpkin pie']);
    expect(events.at(-1)).toEqual({ type: 'complete', meta: { decontextualized_query: 'pumpkin pie / vegan ones?' } });
    expect(events[0]).toEqual({ type: 'start', meta: { decontextualized_query: 'pumpkin pie / vegan ones?' } });
    expect(resultsOf(events)[0]!.name).toBe('pumpkin pie / vegan ones? #1');
  });

  it('passes a client-given decontextualized query and sends both mode and generate_mode', async () => {
    const events = await askAll(agent(), {
      query: { text: 'and cheap?' },
      context: { prev: ['pie'], decontextualized_query: 'cheap pie' } as never,
      prefer: { mode: 'list, summarize' },
    });
    const read = servers[gen].asks().at(-1)!.read!;
    expect(read).toMatchObject({ decontextualized_query: 'cheap pie', generate_mode: 'summarize', mode: 'summarize' });
    expect(resultsOf(events).find((r) => r['@type'] === 'SearchSummary')).toEqual({ '@type': 'SearchSummary', text: 'Two recipes for cheap pie.' });
  });

  it('reads the non-streaming reply shape of its generation', async () => {
    const events = await askAll(legacyAgent({ url: servers[gen].url, generation: gen, streaming: false }), { query: { text: 'muffins' }, prefer: { mode: 'summarize' } });
    expect(servers[gen].asks().at(-1)!.query.streaming).toEqual(['false']);
    const results = resultsOf(events);
    expect(results.map((r) => r['@type'])).toEqual(gen === 'C' ? ['Recipe', 'Recipe', 'SearchSummary'] : ['SearchSummary', 'Recipe', 'Recipe']);
    expect(events.at(-1)!.type).toBe('complete');
  });

  it('an error frame becomes an UPSTREAM_ERROR event that leaks nothing', async () => {
    const events = await askAll(agent(), { query: { text: 'error please' } });
    const err = events.find((e) => e.type === 'error');
    expect(err).toEqual({ type: 'error', code: 'UPSTREAM_ERROR', message: 'Agent "old" reported an error' });
    expect(JSON.stringify(events)).not.toMatch(/Traceback|srv/);
  });

  it('no_results is NO_RESULTS and ask_user an elicitation', async () => {
    expect((await askAll(agent(), { query: { text: 'nothing here' } })).find((e) => e.type === 'error')).toMatchObject({ code: 'NO_RESULTS' });
    const events = await askAll(agent(), { query: { text: 'which pie' } });
    expect(events.find((e) => e.type === 'elicitation')).toEqual({ type: 'elicitation', elicitation: { text: 'Which kind of pie do you mean?' } });
  });

  it('an early EOF is the end of the answer, not an error', async () => {
    const events = await askAll(agent(), { query: { text: 'eof soon' } });
    expect(resultsOf(events)).toHaveLength(2);
    expect(events.map((e) => e.type)).not.toContain('error');
    expect(events.at(-1)!.type).toBe('complete');
  });

  it('keeps unknown message types out of the results', async () => {
    const results = resultsOf(await askAll(agent(), { query: { text: 'odd things' } }));
    expect(results.map((r) => r.name)).toEqual(['odd things #1', 'odd things #2']);
  });

  it('yields each result as it arrives (no buffering of the whole answer)', async () => {
    const times: number[] = [];
    for await (const e of agent().ask({ query: { text: 'drip feed' } }, callContext())) if (e.type === 'result') times.push(Date.now());
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(350);
  });

  it('an HTML 500 page is an UPSTREAM_ERROR naming only the status', async () => {
    const err = await askAll(agent(), { query: { text: 'crash' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'Agent "old" answered HTTP 500' });
  });

  it('describe() lists the sites of GET /sites', async () => {
    const d = await agent().describe();
    expect(d.sites).toEqual(['seriouseats', 'npr podcasts']);
    expect(d.description).toContain('seriouseats, npr podcasts');
  });
});

describe('nlweb-legacy request dialects', () => {
  it('POST JSON reaches generations B and C through the body', async () => {
    for (const gen of ['B', 'C'] as const) {
      await askAll(legacyAgent({ url: servers[gen].url, generation: gen, method: 'POST' }), { query: { text: 'pie' }, context: { prev: ['a, b', 'c'] } });
      const rec = servers[gen].asks().at(-1)!;
      expect(rec.method).toBe('POST');
      expect(rec.query).toEqual({});
      expect(rec.read).toMatchObject({ query: 'pie', prev: ['a, b', 'c'] });
    }
  });

  it('generation A with POST is a config error (it reads only the query string)', () => {
    expect(() => legacyAgent({ url: servers.A.url, generation: 'A', method: 'POST' })).toThrow(/query string/);
  });

  it('auto: detects a late-2025 server from the first reply and then sends prev as JSON', async () => {
    const agent = legacyAgent({ url: servers.C.url });
    expect(agent.dialect).toBeUndefined();
    await askAll(agent, { query: { text: 'q1' }, context: { prev: ['x, y'] } });
    expect(servers.C.asks().at(-1)!.query.prev).toEqual(['x, y']);
    expect(agent.dialect).toBe('C');
    await askAll(agent, { query: { text: 'q2' }, context: { prev: ['x, y'] } });
    expect(servers.C.asks().at(-1)!.query.prev).toEqual(['["x, y"]']);
    expect(servers.C.asks().at(-1)!.read!.prev).toEqual(['x, y']);
  });

  it('sends configured headers, and the client Authorization only when the core hands it over', async () => {
    const agent = legacyAgent({ url: servers.B.url, headers: { 'x-api-key': 'k1' } });
    await askAll(agent, { query: { text: 'pie' } });
    expect(servers.B.asks().at(-1)!.headers).toMatchObject({ 'x-api-key': 'k1' });
    expect(servers.B.asks().at(-1)!.headers.authorization).toBeUndefined();
    await askAll(agent, { query: { text: 'pie' } }, callContext([], { credentials: { authorization: 'Bearer client' } }));
    expect(servers.B.asks().at(-1)!.headers.authorization).toBe('Bearer client');
  });

  it('stops reading when the call is cancelled', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const e of legacyAgent({ url: servers.C.url }).ask({ query: { text: 'drip' } }, callContext([], { signal: controller.signal }))) {
        seen.push(e.type);
        if (e.type === 'result') controller.abort();
      }
    })();
    await expect(run).rejects.toBeDefined();
    expect(seen.filter((t) => t === 'result')).toHaveLength(1);
  });
});
