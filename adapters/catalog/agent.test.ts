import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent, CallContext } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/base/logger.ts';
import type { AskRequest, ResultItem } from '../../src/protocol/nlweb/index.ts';
import { CatalogAgent } from './agent.ts';
import { catalogAdapter, CatalogConfigSchema } from './index.ts';
import { parseCatalog } from './load.ts';

const ROOT = join(import.meta.dirname, '../..');

/** A catalog agent over the shipped recipes, configured the way the gateway's config loader would. */
function recipesAgent(extra: Record<string, unknown> = {}): Agent {
  const own = CatalogConfigSchema.parse({ file: 'examples/catalog/recipes.jsonl', ...extra });
  return catalogAdapter.create({ name: 'recipes', kind: 'catalog', ...own }, { log: silentLogger, baseDir: ROOT });
}

function ctx(over: Partial<CallContext> = {}): CallContext {
  return { signal: new AbortController().signal, requestId: 'test', log: silentLogger, ...over };
}

async function events(agent: Agent, request: unknown, context = ctx()): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of agent.ask(request as AskRequest, context)) out.push(e);
  return out;
}

async function results(agent: Agent, request: unknown, context = ctx()): Promise<ResultItem[]> {
  return (await events(agent, request, context)).flatMap((e) => (e.type === 'result' ? [e.item] : []));
}

const agent = recipesAgent();

describe('catalog agent: the answer stream', () => {
  it('streams start, one result per hit, complete', async () => {
    const evs = await events(agent, { query: { text: 'pasta' } });
    expect(evs[0]).toEqual({ type: 'start' });
    expect(evs.at(-1)).toEqual({ type: 'complete' });
    const items = evs.slice(1, -1);
    expect(items.length).toBeGreaterThan(5);
    expect(items.every((e) => e.type === 'result')).toBe(true);
  });

  it('emits each hit as its full schema.org item plus @id, site, score and grounding', async () => {
    const [first] = await results(agent, { query: { text: 'spaghetti aglio olio' } });
    expect(first).toMatchObject({
      '@type': 'Recipe',
      '@id': 'https://recipes.nlgate.example/quick-dinners/spaghetti-aglio-e-olio#recipe',
      url: 'https://recipes.nlgate.example/quick-dinners/spaghetti-aglio-e-olio',
      name: 'Spaghetti Aglio e Olio',
      site: 'quick-dinners',
      score: 100,
      recipeCuisine: 'Italian',
      grounding: { source: 'https://recipes.nlgate.example/quick-dinners/spaghetti-aglio-e-olio#recipe', catalog: 'recipes.jsonl' },
    });
    expect(first!.recipeIngredient).toContain('400 g spaghetti');
    expect(Object.keys(first!).slice(0, 7)).toEqual(['@type', '@id', 'url', 'name', 'description', 'site', 'score']);
  });

  it('hands out copies: a caller mutating a result does not change the catalog', async () => {
    const [a] = await results(agent, { query: { text: 'shakshuka' } });
    (a!.recipeIngredient as string[]).push('poison');
    a!.name = 'changed';
    const [b] = await results(agent, { query: { text: 'shakshuka' } });
    expect(b!.name).toBe('Shakshuka');
    expect(b!.recipeIngredient).not.toContain('poison');
  });

  it('answers NO_RESULTS (not recoverable) then complete when nothing matches', async () => {
    const evs = await events(agent, { query: { text: 'xylophone' } });
    expect(evs).toEqual([
      { type: 'start' },
      { type: 'error', code: 'NO_RESULTS', message: 'No items in this catalog match "xylophone"', recoverable: false },
      { type: 'complete' },
    ]);
  });

  it('answers INVALID_QUERY for an unvalidated request without text instead of throwing', async () => {
    const evs = await events(agent, { query: {} });
    expect(evs[1]).toMatchObject({ type: 'error', code: 'INVALID_QUERY' });
  });
});

describe('catalog agent: filters', () => {
  it('query.site (string or array) keeps items of those sites', async () => {
    const one = await results(agent, { query: { text: 'chocolate', site: 'baking-corner' } });
    expect(one.length).toBeGreaterThan(1);
    expect(one.every((r) => r.site === 'baking-corner')).toBe(true);
    const two = await results(agent, { query: { text: 'soup', site: ['world-kitchen', 'quick-dinners'] } });
    expect(new Set(two.map((r) => r.site))).toEqual(new Set(['world-kitchen', 'quick-dinners']));
    const none = await events(agent, { query: { text: 'soup', site: 'baking-corner' } });
    expect(none[1]).toMatchObject({ type: 'error', code: 'NO_RESULTS', message: expect.stringContaining('filters on site') });
  });

  it("query.site naming the agent itself (how the router picked it) means the whole catalog", async () => {
    const all = await results(agent, { query: { text: 'soup' } });
    expect(await results(agent, { query: { text: 'soup', site: 'recipes' } })).toEqual(all);
  });

  it('query.itemType keeps items of that @type, with or without the schema.org prefix', async () => {
    const mixed = new CatalogAgent(
      { name: 'mixed' },
      parseCatalog(JSON.stringify([{ '@type': 'Recipe', name: 'Market salad' }, { '@type': 'Event', name: 'Market day' }]), 'mixed.json'),
    );
    expect((await results(mixed, { query: { text: 'market', itemType: 'Event' } })).map((r) => r.name)).toEqual(['Market day']);
    expect((await results(mixed, { query: { text: 'market', itemType: 'https://schema.org/Recipe' } })).map((r) => r.name)).toEqual(['Market salad']);
    expect(await results(mixed, { query: { text: 'market' } })).toHaveLength(2);
  });

  it('other query.* keys filter on the top-level field of that name (contains, any case)', async () => {
    const italian = await results(agent, { query: { text: 'soup', recipeCuisine: 'italian' } });
    expect(italian.map((r) => r.name)).toEqual(['Pasta e Fagioli']);
    const vegan = await results(agent, { query: { text: 'curry', suitableForDiet: 'Vegan' } });
    expect(vegan.length).toBeGreaterThan(0);
    expect(vegan.every((r) => (r.suitableForDiet as string[]).includes('https://schema.org/VeganDiet'))).toBe(true);
    const either = await results(agent, { query: { text: 'soup', recipeCuisine: ['French', 'Mexican'] } });
    expect(new Set(either.map((r) => r.recipeCuisine))).toEqual(new Set(['French', 'Mexican']));
  });

  it('ignores query.* keys that name no field of the catalog (e.g. location on recipes)', async () => {
    const plain = await results(agent, { query: { text: 'pasta' } });
    expect(await results(agent, { query: { text: 'pasta', location: 'Idaho', price: 'less than $20' } })).toEqual(plain);
  });

  it('filters Events on a nested location object', async () => {
    const own = CatalogConfigSchema.parse({ file: 'examples/catalog/events.json' });
    const ev = catalogAdapter.create({ name: 'events', kind: 'catalog', ...own }, { log: silentLogger, baseDir: ROOT });
    const hits = await results(ev, { query: { text: 'class', location: 'USA' } });
    expect(hits.map((r) => r.name)).toEqual(['Knife Skills 101']);
  });
});

describe('catalog agent: how many, from where, how good', () => {
  it('returns maxResults (default 10) unless num_results or max_results says otherwise', async () => {
    expect(await results(agent, { query: { text: '*' } })).toHaveLength(10);
    expect(await results(recipesAgent({ maxResults: 4 }), { query: { text: '*' } })).toHaveLength(4);
    expect(await results(agent, { query: { text: '*', num_results: 3 } })).toHaveLength(3);
    expect(await results(agent, { query: { text: '*', max_results: 2 } })).toHaveLength(2);
    expect(await results(agent, { query: { text: '*', num_results: 1000 } })).toHaveLength(52); // the whole catalog
  });

  it('pages with meta.start_num: consecutive pages neither overlap nor skip', async () => {
    const all = (await results(agent, { query: { text: 'vegan', num_results: 100 } })).map((r) => r['@id']);
    const p1 = (await results(agent, { query: { text: 'vegan', num_results: 4 } })).map((r) => r['@id']);
    const p2 = (await results(agent, { query: { text: 'vegan', num_results: 4 }, meta: { start_num: 4 } })).map((r) => r['@id']);
    expect([...p1, ...p2]).toEqual(all.slice(0, 8));
    const beyond = await events(agent, { query: { text: 'vegan' }, meta: { start_num: 500 } });
    expect(beyond[1]).toMatchObject({ type: 'error', code: 'NO_RESULTS', message: expect.stringContaining('start_num was 500') });
  });

  it('drops hits under min_score (0-100, or a fraction from older clients), and under config minScore', async () => {
    const all = await results(agent, { query: { text: 'vegan curry', num_results: 100 } });
    const strong = await results(agent, { query: { text: 'vegan curry', num_results: 100, min_score: 0.5 } });
    expect(strong.length).toBeGreaterThan(0);
    expect(strong.length).toBeLessThan(all.length);
    expect(strong.every((r) => r.score! >= 50)).toBe(true);
    expect(await results(agent, { query: { text: 'vegan curry', num_results: 100, min_score: 50 } })).toEqual(strong);
    expect(await results(recipesAgent({ minScore: 0.5 }), { query: { text: 'vegan curry', num_results: 100 } })).toEqual(strong);
  });
});

describe('catalog agent: summarize mode', () => {
  it('leads with an extractive SearchSummary when prefer.mode includes summarize', async () => {
    const items = await results(agent, { query: { text: 'pasta', num_results: 3 }, prefer: { mode: 'list,summarize' } });
    expect(items).toHaveLength(4);
    expect(items[0]!['@type']).toBe('SearchSummary');
    expect(items[0]!.text).toMatch(/^Found 8 recipes for "pasta", mostly Italian\. Top matches: .+, .+ and .+\. Quickest: .+ \(\d+ min\)\.$/);
    expect(items[0]!.text).toContain(items[1]!.name!);
  });

  it('gives no summary for mode list, or when the config turns summaries off', async () => {
    const listed = await results(agent, { query: { text: 'pasta' }, prefer: { mode: 'list' } });
    expect(listed.some((r) => r['@type'] === 'SearchSummary')).toBe(false);
    const off = await results(recipesAgent({ summarize: false }), { query: { text: 'pasta' }, prefer: { mode: 'summarize' } });
    expect(off.some((r) => r['@type'] === 'SearchSummary')).toBe(false);
  });
});

describe('catalog agent: conversation context', () => {
  it('a one-word follow-up borrows the previous query ("curry" then "vegan?")', async () => {
    const [top] = await results(agent, { query: { text: 'vegan?' }, context: { prev: ['something quick', 'curry'] } });
    expect(top!.name).toBe('15-Minute Chickpea and Spinach Curry');
    const [alone] = await results(agent, { query: { text: 'vegan?' } });
    expect(alone!.name).not.toBe(top!.name);
  });

  it('states the query it answered as _meta.decontextualized_query on start, and pages through it alike', async () => {
    const followUp = await events(agent, { query: { text: 'vegan?', max_results: 3 }, context: { prev: ['curry'] } });
    expect(followUp[0]).toEqual({ type: 'start', meta: { decontextualized_query: 'vegan curry' } });
    const direct = await results(agent, { query: { text: 'vegan curry', max_results: 3 } });
    expect(followUp.filter((e) => e.type === 'result').map((e) => (e as { item: ResultItem }).item)).toEqual(direct);
    // The next page is asked as the decontextualised query (what the official v0.54 client does).
    const page2 = await results(agent, { query: { text: 'vegan curry', max_results: 3 }, meta: { start_num: 3 } });
    expect(page2.map((r) => r['@id'])).not.toContain(direct[0]!['@id']);
    expect((await events(agent, { query: { text: 'curry' } }))[0]).toEqual({ type: 'start' });
    // A new topic is not a refinement: nothing is both a brownie and a curry, so "brownies" stands alone.
    const topicSwitch = await events(agent, { query: { text: 'brownies' }, context: { prev: ['curry'] } });
    expect(topicSwitch[0]).toEqual({ type: 'start' });
    expect(topicSwitch.filter((e) => e.type === 'result').map((e) => (e as { item: ResultItem }).item.name)).not.toContain('Thai Green Chicken Curry');
    // A client-sent decontextualised query (the older REST API's parameter) is answered as given.
    const given = await events(agent, { query: { text: 'and vegan?' }, context: { prev: ['curry'], decontextualized_query: 'vegan cake' } });
    expect(given[0]).toEqual({ type: 'start', meta: { decontextualized_query: 'vegan cake' } });
  });

  it('max_results is the page size and num_results the depth paged through (v0.54 client)', async () => {
    const first = await results(agent, { query: { text: 'vegan', max_results: 4, num_results: 6 } });
    expect(first).toHaveLength(4);
    const second = await results(agent, { query: { text: 'vegan', max_results: 4, num_results: 6 }, meta: { start_num: 4 } });
    expect(second).toHaveLength(2); // only 6 ranked hits exist to page through
    const whole = await results(agent, { query: { text: 'vegan', num_results: 6 } });
    expect([...first, ...second].map((r) => r['@id'])).toEqual(whole.map((r) => r['@id']));
  });

  it('falls back to the conversation history, and leaves longer queries alone', async () => {
    const conversation = { id: 'c1', prev: ['curry'], attrs: {} };
    const [top] = await results(agent, { query: { text: 'vegan' } }, ctx({ conversation }));
    expect(top!.name).toBe('15-Minute Chickpea and Spinach Curry');
    const long = await results(agent, { query: { text: 'vegan cake' }, context: { prev: ['curry'] } });
    expect(long).toEqual(await results(agent, { query: { text: 'vegan cake' } }));
  });
});

describe('catalog agent: cancellation', () => {
  it('stops yielding as soon as the signal aborts mid-stream', async () => {
    const controller = new AbortController();
    const seen: AgentEvent[] = [];
    for await (const e of agent.ask({ query: { text: '*', num_results: 20 } } as AskRequest, ctx({ signal: controller.signal }))) {
      seen.push(e);
      if (seen.length === 3) controller.abort();
    }
    expect(seen.map((e) => e.type)).toEqual(['start', 'result', 'result']);
  });

  it('yields nothing for an already-aborted call', async () => {
    expect(await events(agent, { query: { text: 'pasta' } }, ctx({ signal: AbortSignal.abort() }))).toEqual([]);
  });
});

describe('catalog adapter: config and describe()', () => {
  it('describes the catalog: derived description, sites, item types, capabilities', async () => {
    expect(await agent.describe()).toEqual({
      description:
        'Search 52 schema.org items (Recipe) from recipes.jsonl by name, description, keywords, ingredients, cuisine, category and diet; sites: quick-dinners, baking-corner, world-kitchen.',
      sites: ['quick-dinners', 'baking-corner', 'world-kitchen'],
      itemTypes: ['Recipe'],
      capabilities: { streaming: true, summarize: true },
    });
  });

  it('uses the configured description; summarize: false shows in capabilities', async () => {
    const d = await recipesAgent({ summarize: false }).describe();
    expect(d.capabilities).toEqual({ streaming: true, summarize: false });
    const named = CatalogConfigSchema.parse({ file: 'examples/catalog/recipes.jsonl' });
    const custom = catalogAdapter.create({ name: 'r', kind: 'catalog', description: 'My recipes', ...named }, { log: silentLogger, baseDir: ROOT });
    expect((await custom.describe()).description).toBe('My recipes');
  });

  it('config sites restricts the catalog and what describe() publishes', async () => {
    const baking = recipesAgent({ sites: ['baking-corner'] });
    expect((await baking.describe()).sites).toEqual(['baking-corner']);
    expect((await results(baking, { query: { text: 'pasta' } })).map((r) => r.name)).toEqual(['Cheesy Baked Ziti']);
    expect(() => recipesAgent({ sites: ['nowhere'] })).toThrow(/no item has a site among nowhere \(sites in the file: quick-dinners/);
  });

  it('validates its config strictly and fills defaults', () => {
    expect(CatalogConfigSchema.parse({ file: 'x.jsonl' })).toEqual({ file: 'x.jsonl', maxResults: 10, summarize: true });
    expect(CatalogConfigSchema.safeParse({ file: 'x.jsonl', fiel: 'typo' }).success).toBe(false);
    expect(CatalogConfigSchema.safeParse({}).success).toBe(false);
    expect(CatalogConfigSchema.safeParse({ file: 'x', minScore: 101 }).success).toBe(false);
    expect(catalogAdapter.kind).toBe('catalog');
  });

  it('fails at create() with an error naming the missing file, resolved against baseDir', () => {
    let err: unknown;
    try {
      recipesAgent({ file: 'examples/catalog/missing.jsonl' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('CONFIG_ERROR');
    expect((err as GatewayError).message).toContain(join(ROOT, 'examples/catalog/missing.jsonl'));
  });
});
