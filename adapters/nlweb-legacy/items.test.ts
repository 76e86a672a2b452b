import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResultItemSchema } from '../../src/protocol/nlweb/index.ts';
import { legacyItemToResult, parseSchemaObject } from './items.ts';

const recipe = { '@context': 'https://schema.org', '@type': 'Recipe', name: 'Pumpkin pie', recipeYield: '8', description: 'from the store' };

describe('legacyItemToResult', () => {
  it('spreads schema_object into a typed item and keeps url, name, site, score, description', () => {
    const item = legacyItemToResult({
      url: 'https://ex.org/pie',
      name: 'Pie',
      site: 'ex',
      siteUrl: 'ex',
      score: 87,
      description: 'ranked: good match',
      schema_object: recipe,
    });
    expect(item).toEqual({
      '@type': 'Recipe',
      '@id': 'https://ex.org/pie',
      url: 'https://ex.org/pie',
      name: 'Pie',
      site: 'ex',
      score: 87,
      description: 'ranked: good match',
      recipeYield: '8',
    });
  });

  it('parses schema_object given as a JSON string, and as the JSON array the reference server stores', () => {
    expect(legacyItemToResult({ url: 'u', name: 'n', schema_object: JSON.stringify(recipe) })?.['@type']).toBe('Recipe');
    expect(legacyItemToResult({ url: 'u', name: 'n', schema_object: JSON.stringify([recipe]) })?.recipeYield).toBe('8');
  });

  it('takes the schema.org type over the late-2025 wrapper type "Item", and Thing when none is known', () => {
    expect(legacyItemToResult({ '@type': 'Item', url: 'u', name: 'n', schema_object: recipe })?.['@type']).toBe('Recipe');
    expect(legacyItemToResult({ '@type': 'Item', url: 'u', name: 'n' })?.['@type']).toBe('Thing');
    expect(legacyItemToResult({ url: 'u', schema_object: { '@type': ['Movie', 'Thing'] } })?.['@type']).toBe('Movie');
  });

  it('keeps a 0-100 score as given and reads a numeric string', () => {
    expect(legacyItemToResult({ url: 'u', score: '64' })?.score).toBe(64);
    expect(legacyItemToResult({ url: 'u', score: 'high' })?.score).toBeUndefined();
  });

  it('drops schema.org fields that would break the v0.55 item schema instead of the item', () => {
    const item = legacyItemToResult({ url: 'u', name: 'n', schema_object: { '@type': 'Product', actions: [{ x: 1 }], grounding: 'no', name: { a: 1 } } });
    expect(item).toMatchObject({ '@type': 'Product', name: 'n', url: 'u' });
    expect(item).not.toHaveProperty('actions');
    expect(item).not.toHaveProperty('grounding');
  });

  it('refuses what is not an item', () => {
    expect(legacyItemToResult('text')).toBeUndefined();
    expect(legacyItemToResult({})).toBeUndefined();
    expect(legacyItemToResult({ schema_object: 'not json' })).toBeUndefined();
  });

  it('property: whatever the upstream sends, the result is undefined or a valid v0.55 item with @type', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            '@type': fc.oneof(fc.string(), fc.constant('Item'), fc.array(fc.string())),
            url: fc.oneof(fc.webUrl(), fc.string(), fc.integer()),
            name: fc.oneof(fc.string(), fc.object()),
            site: fc.anything(),
            score: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.string(), fc.double()),
            description: fc.anything(),
            schema_object: fc.oneof(fc.object(), fc.json(), fc.string(), fc.array(fc.object())),
          },
          { requiredKeys: [] },
        ),
        (raw) => {
          const item = legacyItemToResult(raw);
          if (item === undefined) return;
          expect(ResultItemSchema.safeParse(item).success).toBe(true);
          expect(typeof item['@type']).toBe('string');
          if (typeof raw.url === 'string' && raw.url.length > 0) expect(item['@id']).toBe(raw.url);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseSchemaObject', () => {
  it('reads an @graph and ignores garbage', () => {
    expect(parseSchemaObject({ '@graph': [{ '@type': 'Event' }] })).toEqual({ '@type': 'Event' });
    expect(parseSchemaObject('[1,2]')).toBeUndefined();
    expect(parseSchemaObject(42)).toBeUndefined();
  });
});
