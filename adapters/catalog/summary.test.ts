import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from './load.ts';
import type { SearchHit } from './search.ts';
import { durationMinutes, summarizeHits } from './summary.ts';

function hit(idx: number, item: Record<string, unknown>): SearchHit {
  const types = typeof item['@type'] === 'string' ? [item['@type']] : [];
  const entry: CatalogEntry = { idx, item, site: 's', types };
  return { entry, score: 1, raw: 1 };
}

describe('durationMinutes', () => {
  it('reads ISO 8601 durations', () => {
    expect(durationMinutes('PT20M')).toBe(20);
    expect(durationMinutes('PT1H5M')).toBe(65);
    expect(durationMinutes('P1DT2H')).toBe(1560);
    expect(durationMinutes('PT90S')).toBe(2);
    expect(durationMinutes('PT0M')).toBe(0);
  });

  it('rejects what is not a duration', () => {
    for (const v of ['P', 'PT', '20 minutes', 'PT5X', 20, undefined]) expect(durationMinutes(v)).toBeUndefined();
  });
});

describe('summarizeHits', () => {
  const recipes = [
    hit(0, { '@type': 'Recipe', name: 'A', recipeCuisine: 'Thai', totalTime: 'PT40M' }),
    hit(1, { '@type': 'Recipe', name: 'B', recipeCuisine: 'Thai', prepTime: 'PT5M', cookTime: 'PT10M' }),
    hit(2, { '@type': 'Recipe', name: 'C', recipeCuisine: 'Indian' }),
    hit(3, { '@type': 'Recipe', name: 'D', recipeCuisine: 'Thai' }),
  ];

  it('counts, names the common cuisine, the top three and the quickest', () => {
    expect(summarizeHits('noodles', recipes, recipes)).toBe(
      'Found 4 recipes for "noodles", mostly Thai. Top matches: A, B and C. Quickest: B (15 min).',
    );
  });

  it('says "all" when every hit shares the cuisine, and speaks of one item in the singular', () => {
    const thai = [recipes[0]!, recipes[1]!];
    expect(summarizeHits('x', thai, thai)).toMatch(/^Found 2 recipes for "x", all Thai\./);
    expect(summarizeHits('x', [recipes[2]!], [recipes[2]!])).toBe('Found 1 recipe for "x". Top match: C.');
  });

  it('pluralises other types and uses headlines when there are no names', () => {
    const parties = [hit(0, { '@type': 'Party', headline: 'P1' }), hit(1, { '@type': 'Party', headline: 'P2' })];
    expect(summarizeHits('fun', parties, parties)).toBe('Found 2 parties for "fun". Top matches: P1 and P2.');
    const untyped = [hit(0, { name: 'U' }), hit(1, { name: 'V' })];
    expect(summarizeHits('u', untyped, untyped)).toMatch(/^Found 2 items/);
  });

  it('quotes a long query shortened', () => {
    expect(summarizeHits('x'.repeat(200), recipes, recipes)).toContain(`"${'x'.repeat(79)}…"`);
  });
});
