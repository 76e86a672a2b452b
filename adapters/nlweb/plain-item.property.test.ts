import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResultItemSchema } from '../../src/protocol/nlweb/index.ts';
import { plainResultItem } from './plain-item.ts';

/** Mostly absent (undefined: JSON.stringify leaves the key out). */
const rarely = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: arb, weight: 1 });

/** Items as upstreams send them: the schema's fields with right and wrong types, and others. */
const wrong = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
/** Mostly the right type (strings), so that whole items often take the fast path. */
const field = fc.oneof({ arbitrary: fc.string(), weight: 8 }, { arbitrary: wrong, weight: 1 });
const item = fc.record(
  {
    '@type': field,
    '@id': field,
    url: field,
    name: fc.oneof(fc.string(), field),
    description: field,
    site: field,
    score: fc.oneof({ arbitrary: fc.double(), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 100 }), weight: 3 }, { arbitrary: wrong, weight: 1 }),
    text: field,
    // Rarely there: an item with either goes to the schema.
    grounding: rarely(field),
    actions: rarely(field),
    extra: field,
    __proto__: rarely(field),
  },
  { requiredKeys: [] },
);

describe('plainResultItem (the NLWeb adapter’s fast read of a result item)', () => {
  it('answers what ResultItemSchema.parse answers (the same fields and values, the upstream’s order kept) whenever it answers', () => {
    let answered = 0;
    fc.assert(
      fc.property(item, fc.func(fc.integer()), (generated, rank) => {
        // The keys in any order, as upstreams write them (zod puts its own fields first).
        const keys = Object.keys(generated).sort((a, b) => rank(a) - rank(b));
        const shuffled: Record<string, unknown> = {};
        for (const k of keys) {
          const value = (generated as Record<string, unknown>)[k];
          // defineProperty: a "__proto__" key is an own field here, as JSON.parse makes it.
          if (value !== undefined) Object.defineProperty(shuffled, k, { value, enumerable: true, writable: true, configurable: true });
        }
        const raw = JSON.parse(JSON.stringify(shuffled)) as Record<string, unknown>;
        const fast = plainResultItem(raw);
        if (fast === undefined) return;
        answered++;
        const parsed = ResultItemSchema.safeParse(raw);
        expect(parsed.success).toBe(true);
        // The same members; the order is the upstream's, not zod's (its own fields first).
        expect(fast).toStrictEqual(parsed.data);
        expect(Object.keys(fast)).toEqual(Object.keys(raw));
      }),
      { numRuns: 2000 },
    );
    // The generator reaches the fast path often enough for the comparison to mean something.
    expect(answered).toBeGreaterThan(100);
  });

  it('answers for the common item (strings and a number score), leaving grounding and actions to the schema', () => {
    expect(plainResultItem({ url: 'https://e.x/1', name: 'Pasta', '@type': 'Recipe', score: 80, rating: 4 })).toEqual({ url: 'https://e.x/1', name: 'Pasta', '@type': 'Recipe', score: 80, rating: 4 });
    // Key order as given (a rebuild in the schema's order was half the read, issue 25).
    expect(Object.keys(plainResultItem({ name: 'n', score: 1, description: 'd' })!)).toEqual(['name', 'score', 'description']);
    expect(plainResultItem({ name: 'x', grounding: {} })).toBeUndefined();
    expect(plainResultItem({ name: 'x', actions: [] })).toBeUndefined();
    expect(plainResultItem({ name: 1 })).toBeUndefined();
  });
});
