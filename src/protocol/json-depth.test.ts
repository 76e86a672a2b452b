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
});
