import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/base/logger.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { CatalogAgent } from './agent.ts';
import { type CatalogFormat, loadCatalogFile, parseCatalog } from './load.ts';
import { fuzzyEdits, planQuery, SEARCH_BOUNDS } from './bounds.ts';
import { CatalogIndex } from './search.ts';

/** A parse either yields entries or throws a CONFIG_ERROR GatewayError: never anything else. */
function parsesCleanly(text: string, file: string, format?: CatalogFormat): void {
  try {
    const c = parseCatalog(text, file, format);
    expect(c.entries.length).toBeGreaterThan(0);
    for (const e of c.entries) {
      expect(typeof e.site).toBe('string');
      expect(e.item).toBeTypeOf('object');
    }
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('CONFIG_ERROR');
    expect((err as GatewayError).message.startsWith(`Catalog file ${file}`)).toBe(true);
  }
}

const anyText = fc.string({ unit: 'binary', maxLength: 300 });
const xmlish = fc
  .array(
    fc.oneof(
      fc.constantFrom('<rss>', '<channel>', '</channel>', '<item>', '</item>', '<title>', '</title>', '<link>', '</link>'),
      fc.constantFrom('<description>', '</description>', '<![CDATA[', ']]>', '&amp;', '&#x110000;', '&#99999999999;', '<item/>', '<'),
      fc.string({ maxLength: 12 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('catalog loader never crashes (fast-check)', () => {
  it('on arbitrary text, in every format', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom<CatalogFormat | undefined>('json', 'jsonl', 'rss', undefined), (text, format) => {
        parsesCleanly(text, 'fuzz.dat', format);
      }),
      { numRuns: 300 },
    );
  });

  it('on any JSON document, and on JSON values written one per line', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (json) => parsesCleanly(json, 'fuzz.json')),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.json({ maxDepth: 3 }), anyText), { maxLength: 8 }), (lines) =>
        parsesCleanly(lines.join('\n'), 'fuzz.jsonl'),
      ),
      { numRuns: 300 },
    );
  });

  it('on RSS-looking markup', () => {
    fc.assert(
      fc.property(xmlish, (xml) => parsesCleanly(xml, 'fuzz.rss')),
      { numRuns: 400 },
    );
  });

  it('keeps any item object it is given (JSON array round trip)', () => {
    const item = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 6 }), (items) => {
        const c = parseCatalog(JSON.stringify(items), 'round.json');
        expect(c.entries.map((e) => e.item)).toEqual(items.map((i) => JSON.parse(JSON.stringify(i))));
      }),
      { numRuns: 200 },
    );
  });
});

const recipes = loadCatalogFile(join(import.meta.dirname, '../../examples/catalog/recipes.jsonl'));
const index = new CatalogIndex(recipes.entries);
const agent = new CatalogAgent({ name: 'recipes', maxResults: 10 }, recipes);
const words = fc.constantFrom('pasta', 'vegan', 'curry', 'soup', 'cake', 'spagetti', 'the', '*', 'gluten-free', 'é', '?');
const queryText = fc.oneof(anyText, fc.array(words, { maxLength: 5 }).map((w) => w.join(' ')));

describe('catalog search never throws (fast-check)', () => {
  it('scores every hit in (0, 100], best first', () => {
    fc.assert(
      fc.property(queryText, (text) => {
        const hits = index.search(text);
        for (let i = 0; i < hits.length; i++) {
          expect(hits[i]!.score).toBeGreaterThan(0);
          expect(hits[i]!.score).toBeLessThanOrEqual(100);
          if (i > 0) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('plans every query within the search bounds, however long (issue 11)', () => {
    const longWord = fc.integer({ min: 1, max: 5000 }).chain((n) => fc.constantFrom('a', 'é', 'zq', '蛋').map((u) => u.repeat(n)));
    const text = fc.oneof(anyText, longWord, fc.array(fc.oneof(longWord, fc.string({ maxLength: 12 })), { maxLength: 200 }).map((w) => w.join(' ')));
    fc.assert(
      fc.property(text, (t) => {
        const plan = planQuery(t);
        expect(plan.terms.length).toBeLessThanOrEqual(SEARCH_BOUNDS.maxTerms);
        for (const term of plan.terms) {
          expect(term.length).toBeLessThanOrEqual(SEARCH_BOUNDS.maxTermChars);
          expect(fuzzyEdits(term)).toBeLessThanOrEqual(SEARCH_BOUNDS.maxEdits);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('answers any query object with start … complete and at most the asked number of results', async () => {
    const filterValue = fc.oneof(fc.string({ maxLength: 10 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }), fc.integer(), fc.constant(null));
    const request = fc.record(
      {
        query: fc
          .tuple(
            fc.record(
              {
                text: queryText,
                site: fc.oneof(fc.constantFrom('quick-dinners', 'recipes', 'nope'), fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 })),
                itemType: fc.constantFrom('Recipe', 'Event', ''),
                num_results: fc.integer({ min: 1, max: 30 }),
                max_results: fc.integer({ min: 1, max: 30 }),
                min_score: fc.double({ min: -1, max: 120, noNaN: true }),
                recipeCuisine: filterValue,
              },
              { requiredKeys: ['text'] },
            ),
            // Arbitrary extra filters, including keys no item has and keys like "__proto__".
            fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), filterValue, { maxKeys: 3 }),
          )
          .map(([known, extra]) => ({ ...extra, ...known })),
        prefer: fc.record({ mode: fc.constantFrom('list', 'summarize', 'list, summarize', '') }),
        context: fc.record({ prev: fc.array(queryText, { maxLength: 3 }) }),
        meta: fc.record({ start_num: fc.integer({ min: 0, max: 60 }) }),
      },
      { requiredKeys: ['query'] },
    );
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const seen: AgentEvent[] = [];
        const ctx = { signal: new AbortController().signal, requestId: 'fuzz', log: silentLogger };
        for await (const e of agent.ask(req as unknown as AskRequest, ctx)) seen.push(e);
        expect(seen[0]?.type).toBe('start');
        expect(seen.at(-1)?.type).toBe('complete');
        const items = seen.filter((e) => e.type === 'result' && e.item['@type'] !== 'SearchSummary');
        expect(items.length).toBeLessThanOrEqual(req.query.max_results ?? req.query.num_results ?? 10);
        if (items.length === 0) expect(seen.some((e) => e.type === 'error')).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
