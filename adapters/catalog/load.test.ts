import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/base/errors.ts';
import { detectFormat, loadCatalogFile, parseCatalog } from './load.ts';

const EXAMPLES = join(import.meta.dirname, '../../examples/catalog');

/** Runs `fn` and returns the GatewayError it throws (fails the test when it throws nothing or something else). */
function loadFailure(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected a load error');
}

const recipe = (name: string, extra: Record<string, unknown> = {}) => ({ '@type': 'Recipe', name, ...extra });

describe('parseCatalog: JSON', () => {
  it('reads a JSON array of items', () => {
    const c = parseCatalog(JSON.stringify([recipe('A'), recipe('B')]), 'list.json');
    expect(c.format).toBe('json');
    expect(c.entries.map((e) => e.item.name)).toEqual(['A', 'B']);
    expect(c.entries.map((e) => e.idx)).toEqual([0, 1]);
  });

  it('reads an ItemList, unwrapping ListItem.item and inheriting the list @context', () => {
    const doc = {
      '@context': 'https://schema.org',
      '@type': 'ItemList',
      itemListElement: [{ '@type': 'ListItem', position: 1, item: recipe('Wrapped') }, recipe('Bare')],
    };
    const c = parseCatalog(JSON.stringify(doc), 'list.json');
    expect(c.entries.map((e) => e.item.name)).toEqual(['Wrapped', 'Bare']);
    expect(c.entries[0]!.item['@context']).toBe('https://schema.org');
    expect(c.entries[0]!.types).toEqual(['Recipe']);
  });

  it('reads an @graph document', () => {
    const doc = { '@context': 'https://schema.org', '@graph': [recipe('G1'), { '@type': ['Event', 'Thing'], name: 'G2' }] };
    const c = parseCatalog(JSON.stringify(doc), 'graph.jsonld');
    expect(c.entries.map((e) => e.item.name)).toEqual(['G1', 'G2']);
    expect(c.entries[1]!.types).toEqual(['Event', 'Thing']);
  });

  it('reads a single item object as a one-item catalog', () => {
    expect(parseCatalog(JSON.stringify(recipe('Solo')), 'one.json').entries).toHaveLength(1);
  });

  it("takes each item's own site, else the file's stem", () => {
    const c = parseCatalog(JSON.stringify([recipe('A', { site: 'mine' }), recipe('B')]), '/data/kitchen.json');
    expect(c.entries.map((e) => e.site)).toEqual(['mine', 'kitchen']);
    expect(c.name).toBe('kitchen.json');
  });

  it('names the line of a syntax error V8 reports with a position', () => {
    const err = loadFailure(() => parseCatalog('[\n  {"name": "A"},\n  {"name" "B"}\n]', 'broken.json'));
    expect(err.code).toBe('CONFIG_ERROR');
    expect(err.message).toMatch(/^Catalog file broken\.json, line 3: not valid JSON/);
    expect(err.details).toEqual({ file: 'broken.json', line: 3 });
  });

  it('names the line of an "Unexpected token" error, which V8 reports without a position', () => {
    const err = loadFailure(() => parseCatalog('[\n{"a": 1},\n{"b": 2},\n{"c": tru}\n]', 'token.json'));
    expect(err.message).toMatch(/token\.json, line 4: not valid JSON: Unexpected token/);
    expect(err.message).not.toContain('is not valid JSON'); // V8's echo of the input is cut
  });

  it('hints at JSONL when a .json file holds one object per line', () => {
    const err = loadFailure(() => parseCatalog('{"name":"A"}\n{"name":"B"}\n', 'lines.json'));
    expect(err.message).toMatch(/line 2: .*name the file \.jsonl/);
  });

  it('rejects a non-object element, naming its position', () => {
    const err = loadFailure(() => parseCatalog('[{"name":"A"}, 42]', 'mixed.json'));
    expect(err.message).toContain('element 2 of the array is a number');
  });

  it('rejects a bare JSON scalar and an empty list', () => {
    expect(loadFailure(() => parseCatalog('"just text"', 'x.json')).message).toContain('got a string');
    expect(loadFailure(() => parseCatalog('[]', 'x.json')).message).toContain('no items found');
  });
});

describe('parseCatalog: JSONL', () => {
  it('reads one object per line, skipping blank lines and CRLF endings', () => {
    const c = parseCatalog('{"name":"A"}\r\n\r\n{"name":"B"}\n', 'items.jsonl');
    expect(c.format).toBe('jsonl');
    expect(c.entries.map((e) => e.item.name)).toEqual(['A', 'B']);
  });

  it('names the bad line of a JSONL file', () => {
    const err = loadFailure(() => parseCatalog('{"name":"A"}\n\n{"name": oops}\n{"name":"C"}', 'items.jsonl'));
    expect(err.message).toMatch(/^Catalog file items\.jsonl, line 3: not valid JSON/);
    expect(err.details).toMatchObject({ line: 3 });
  });

  it('rejects a line that is JSON but not an object', () => {
    const err = loadFailure(() => parseCatalog('{"name":"A"}\n[1,2]\n', 'items.ndjson'));
    expect(err.message).toContain('line 2: expected one JSON object per line, got an array');
  });
});

const FEED = `<?xml version="1.0"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
  <title>Notes</title><link>https://notes.example/</link>
  <item>
    <title>Salt &amp; pepper</title>
    <link>https://notes.example/a</link>
    <guid isPermaLink="false">note-a</guid>
    <description>&lt;p&gt;Season &lt;b&gt;early&lt;/b&gt;, taste often.&lt;/p&gt; &#8212; always</description>
    <category>technique</category><category>basics</category>
    <dc:creator>Ana</dc:creator>
    <pubDate>Mon, 02 Feb 2026 09:00:00 GMT</pubDate>
  </item>
  <item><title><![CDATA[Raw <b>bold</b> & co]]></title><pubDate>sometime</pubDate></item>
  <item><category>empty</category></item>
</channel></rss>`;

describe('parseCatalog: RSS 2.0', () => {
  it('turns <item>s into schema.org Articles', () => {
    const c = parseCatalog(FEED, 'feed.xml');
    expect(c.format).toBe('rss');
    expect(c.entries).toHaveLength(2); // the item with no title, link or description is skipped
    const a = c.entries[0]!;
    expect(a.item).toEqual({
      '@type': 'Article',
      '@id': 'https://notes.example/a', // a non-URL guid gives way to the link
      url: 'https://notes.example/a',
      name: 'Salt & pepper',
      headline: 'Salt & pepper',
      description: 'Season early, taste often. — always',
      datePublished: '2026-02-02T09:00:00.000Z',
      keywords: 'technique, basics',
      author: { '@type': 'Person', name: 'Ana' },
    });
    expect(a.site).toBe('notes.example'); // the channel link's host
    expect(a.types).toEqual(['Article']);
  });

  it('keeps CDATA verbatim and an unparseable pubDate as written', () => {
    const b = parseCatalog(FEED, 'feed.rss').entries[1]!.item;
    expect(b.name).toBe('Raw <b>bold</b> & co');
    expect(b.datePublished).toBe('sometime');
  });

  it('sniffs RSS from content when the extension says nothing', () => {
    expect(detectFormat(FEED, 'feed')).toBe('rss');
    expect(detectFormat('[{}]', 'data')).toBe('json');
    expect(detectFormat('{"a":1}\n{"a":2}', 'data')).toBe('jsonl');
    expect(detectFormat('{"a":1}', 'data')).toBe('json');
  });

  it('names the line of an unclosed <item>', () => {
    const err = loadFailure(() => parseCatalog('<rss><channel>\n<title>x</title>\n<item><title>open', 'bad.rss'));
    expect(err.message).toBe('Catalog file bad.rss, line 3: an <item> element is never closed');
  });

  it('rejects Atom and non-RSS XML clearly', () => {
    expect(loadFailure(() => parseCatalog('<feed xmlns="http://www.w3.org/2005/Atom"></feed>', 'a.xml')).message).toContain('Atom');
    expect(loadFailure(() => parseCatalog('<html><body/></html>', 'a.xml')).message).toContain('no <channel>');
  });

  it('decodes an out-of-range character reference to U+FFFD instead of throwing', () => {
    const c = parseCatalog('<rss><channel><item><title>x &#x110000; &#0; y</title></item></channel></rss>', 'r.rss');
    expect(c.entries[0]!.item.name).toBe('x \uFFFD \uFFFD y');
  });
});

describe('loadCatalogFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nlgate-catalog-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names a missing file', () => {
    const path = join(dir, 'nope.jsonl');
    const err = loadFailure(() => loadCatalogFile(path));
    expect(err.message).toBe(`Catalog file ${path}: cannot read it (no such file)`);
  });

  it('rejects an empty file and a directory', () => {
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '\uFEFF  \n');
    expect(loadFailure(() => loadCatalogFile(empty)).message).toContain('the file is empty');
    expect(loadFailure(() => loadCatalogFile(dir)).message).toContain('is a directory');
  });

  it('loads the shipped recipes: 50+ complete schema.org Recipes over three sites', () => {
    const c = loadCatalogFile(join(EXAMPLES, 'recipes.jsonl'));
    expect(c.entries.length).toBeGreaterThanOrEqual(50);
    expect(new Set(c.entries.map((e) => e.site))).toEqual(new Set(['quick-dinners', 'baking-corner', 'world-kitchen']));
    const ids = new Set<string>();
    for (const { item } of c.entries) {
      expect(item).toMatchObject({ '@context': 'https://schema.org', '@type': 'Recipe' });
      for (const key of ['name', 'description', 'recipeCuisine', 'recipeCategory', 'keywords', 'prepTime', 'cookTime', 'recipeYield']) {
        expect(typeof item[key], `${String(item.name)}.${key}`).toBe('string');
      }
      expect(item['@id']).toMatch(/^https:\/\/recipes\.nlgate\.example\//);
      ids.add(item['@id'] as string);
      expect((item.recipeIngredient as unknown[]).length).toBeGreaterThan(2);
      expect(item.recipeInstructions).toEqual(expect.arrayContaining([expect.objectContaining({ '@type': 'HowToStep' })]));
      expect(item.prepTime).toMatch(/^PT(\d+H)?(\d+M)?$/);
      expect(item.nutrition).toMatchObject({ calories: expect.stringMatching(/^\d+ kcal$/) });
    }
    expect(ids.size).toBe(c.entries.length); // stable, unique @ids
  });

  it('loads the shipped events (an ItemList of ListItems) and RSS feed', () => {
    const events = loadCatalogFile(join(EXAMPLES, 'events.json'));
    expect(events.entries).toHaveLength(8);
    expect(events.entries.every((e) => e.types[0] === 'Event' && e.site === 'events')).toBe(true);
    const notes = loadCatalogFile(join(EXAMPLES, 'kitchen-notes.rss'));
    expect(notes.entries.map((e) => e.site)).toEqual(Array(4).fill('notes.nlgate.example'));
  });
});
