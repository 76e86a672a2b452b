import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogFile, parseCatalog } from './load.ts';
import { CatalogIndex } from './search.ts';
import { planQuery } from './bounds.ts';

const queryTerms = (text: string) => planQuery(text).terms;

const recipes = loadCatalogFile(join(import.meta.dirname, '../../examples/catalog/recipes.jsonl'));
const index = new CatalogIndex(recipes.entries);
const names = (text: string, opts = {}) => index.search(text, opts).map((h) => h.entry.item.name as string);
const isPasta = (item: Record<string, unknown>) => /\bpasta\b/i.test(String(item.keywords));

describe('CatalogIndex ranking', () => {
  it('finds pasta dishes first for "pasta", and only them', () => {
    const hits = index.search('pasta');
    const pasta = recipes.entries.filter((e) => isPasta(e.item));
    expect(pasta.length).toBeGreaterThanOrEqual(6);
    expect(hits.slice(0, pasta.length).every((h) => isPasta(h.entry.item))).toBe(true);
    // "pasta" is a known word, so no fuzzy drift to "tomato paste" / "curry paste" recipes.
    expect(hits.map((h) => h.entry.item.name)).not.toContain('Butter Chicken (Murgh Makhani)');
    expect(hits).toHaveLength(pasta.length);
  });

  it('ranks a name match above a passing mention', () => {
    expect(names('brownies')[0]).toBe('Fudgy Cocoa Brownies');
    expect(names('curry').slice(0, 2)).toContain('15-Minute Chickpea and Spinach Curry');
  });

  it('forgives a typo in an unknown word (fuzzy) and completes a half-typed one (prefix)', () => {
    expect(names('spagetti')[0]).toBe('Spaghetti Aglio e Olio');
    expect(names('focac')[0]).toBe('Rosemary and Sea Salt Focaccia');
  });

  it('matches plurals and accents either way', () => {
    expect(names('brownie')[0]).toBe('Fudgy Cocoa Brownies');
    expect(names('soups').length).toBe(names('soup').length);
    expect(names('gruyere')).toEqual(['French Onion Soup']); // the item says "gruyère"
  });

  it('searches diets through suitableForDiet ("gluten free soup" puts gluten-free soups first)', () => {
    const top = index.search('gluten free soup')[0]!.entry.item;
    expect(top.recipeCategory).toBe('Soup');
    expect(top.suitableForDiet).toContain('https://schema.org/GlutenFreeDiet');
  });

  it('ignores stop words in the query', () => {
    expect(queryTerms('Something protein rich that has cinnamon in it')).toEqual(['protein', 'rich', 'cinnamon']);
    expect(names('something protein rich that has cinnamon in it')[0]).toBe('Pumpkin Cinnamon Protein Oat Bars');
    expect(queryTerms('what is it')).toEqual(['what', 'is', 'it']); // only stop words: keep them
  });
});

describe('CatalogIndex ranking like a search engine (issue 17)', () => {
  const isVegan = (item: Record<string, unknown>) => (item.suitableForDiet as string[] | undefined)?.includes('https://schema.org/VeganDiet') ?? false;

  it('puts hits matching every term first, then those having the diet the query names ("vegan curry")', () => {
    const hits = index.search('vegan curry');
    expect(hits[0]!.entry.item.name).toBe('15-Minute Chickpea and Spinach Curry');
    const firstNonVegan = hits.findIndex((h) => !isVegan(h.entry.item));
    const lastVegan = hits.map((h) => isVegan(h.entry.item)).lastIndexOf(true);
    expect(firstNonVegan).toBeGreaterThan(lastVegan); // no chicken curry ahead of any vegan dish
    expect(hits.map((h) => h.entry.item.name)).toContain('Thai Green Chicken Curry'); // still found, last
  });

  it('counts a diet word only for items of that diet: a mere mention ranks below', () => {
    const c = parseCatalog(
      JSON.stringify([
        { '@type': 'Recipe', name: 'Chicken curry', description: 'Not vegan, but a vegan version uses tofu.' },
        { '@type': 'Recipe', name: 'Lentil curry', suitableForDiet: 'https://schema.org/VeganDiet' },
      ]),
      'diet.json',
    );
    expect(new CatalogIndex(c.entries).search('vegan curry').map((h) => h.entry.item.name)).toEqual(['Lentil curry', 'Chicken curry']);
  });
});

describe('CatalogIndex scores', () => {
  it('scores on the gateway\'s 0-100 scale with the best full match at 100, sorted best first', () => {
    const hits = index.search('lemon cake');
    expect(hits[0]!.score).toBe(100);
    for (const h of hits) {
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBeLessThanOrEqual(100);
    }
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it('scales by the share of query terms matched: one of two terms scores at most 50', () => {
    const hits = index.search('pasta zzzqqq');
    expect(hits.length).toBeGreaterThan(0);
    expect(Math.max(...hits.map((h) => h.score))).toBe(50);
  });

  it('returns nothing for words the catalog does not know', () => {
    expect(index.search('xylophone')).toEqual([]);
    expect(index.search('   ')).toEqual([]);
  });

  it('lists everything for "*" (file order, score 100), filters still applying', () => {
    const all = index.search('*');
    expect(all).toHaveLength(recipes.entries.length);
    expect(all.every((h) => h.score === 100)).toBe(true);
    const baking = index.search('*', { filter: (e) => e.site === 'baking-corner' });
    expect(baking.length).toBeGreaterThan(5);
    expect(baking.every((h) => h.entry.site === 'baking-corner')).toBe(true);
  });
});

describe('CatalogIndex types', () => {
  it('works on any schema.org type, indexing @type and nested location text', () => {
    const c = parseCatalog(
      JSON.stringify([
        { '@type': 'Event', name: 'Night market', location: { '@type': 'Place', name: 'Riverside', address: 'Lisbon' } },
        { '@type': 'Article', headline: 'Market prices explained' },
      ]),
      'mixed.json',
    );
    const mixed = new CatalogIndex(c.entries);
    expect(mixed.search('lisbon').map((h) => h.entry.idx)).toEqual([0]);
    expect(mixed.search('prices').map((h) => h.entry.idx)).toEqual([1]); // headline stands in for name
    expect(mixed.search('event').map((h) => h.entry.idx)).toEqual([0]);
  });
});
