import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDepth, jsonTooDeep, MAX_JSON_DEPTH } from './json-depth.ts';

/** The depth of a parsed value, by recursion (fine for the shallow values generated here). */
const depthOf = (v: unknown): number =>
  v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depthOf)) : 0;

describe('jsonDepth', () => {
  it('equals the parsed value\'s nesting for any JSON value (strings with brackets and escapes included)', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => {
      expect(jsonDepth(JSON.stringify(v), 1000)).toBe(depthOf(v));
    }));
  });

  it('never throws on any text, however malformed', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', 'a', ':', ',') }), (s) => {
      expect(typeof jsonDepth(s)).toBe("number");
    }));
  });

  it('refuses a body one level past the bound and accepts one at it, without recursing on 100,000 levels', () => {
    const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toMatch(/deeper than 64/);
    expect(jsonTooDeep(nested(100_000))).toBeDefined();
    expect(jsonTooDeep('{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\""}')).toBeUndefined();
  });

  it('answers as the full scan does for any text, the bracket count before it included', () => {
    const scan = (t: string) => (jsonDepth(t) > MAX_JSON_DEPTH ? `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels` : undefined);
    const unit = fc.constantFrom('{', '}', '[', ']', '"', '\\', 'a', ':', ',');
    // Around the bound: n levels of one bracket kind, noise (string brackets too) on either side.
    const near = fc.tuple(fc.integer({ min: 0, max: 140 }), fc.boolean(), fc.string({ unit, maxLength: 40 }), fc.string({ unit, maxLength: 40 }))
      .map(([n, curly, before, after]) => `${before}${(curly ? '{"k":' : '[').repeat(n)}1${(curly ? '}' : ']').repeat(n)}${after}`);
    fc.assert(fc.property(fc.oneof(fc.string({ unit, maxLength: 300 }), near), (t) => {
      expect(jsonTooDeep(t)).toBe(scan(t));
    }), { numRuns: 2000 });
  });
});
