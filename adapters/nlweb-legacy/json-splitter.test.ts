import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitConcatenatedJson } from './json-splitter.ts';

/** Strings heavy in the characters that fool a naive splitter: braces, brackets, quotes, backslashes. */
const trickyString = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', 'a', ' ', '\n', 'é', '😀') });
const jsonValue = fc.letrec((tie) => ({
  leaf: fc.oneof(trickyString, fc.integer(), fc.boolean(), fc.constant(null)),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(trickyString, tie('node'), { maxKeys: 4 }),
  ),
})).node;
/** Top-level values are objects or arrays (what the legacy `/mcp` concatenates). */
const container = fc.oneof(fc.dictionary(trickyString, jsonValue, { maxKeys: 5 }), fc.array(jsonValue, { maxLength: 5 }));
const separator = fc.constantFrom('', '', '\n', ' ', '\r\n', ',', '\n\n');

describe('splitConcatenatedJson', () => {
  it('splits frames written back to back with no separator', () => {
    const text = '{"message_type":"begin-nlweb-response"}{"message_type":"result","content":[{"name":"a {b}"}]}{"message_type":"end-nlweb-response"}';
    const { values, rejected, rest } = splitConcatenatedJson(text);
    expect(values).toEqual([
      { message_type: 'begin-nlweb-response' },
      { message_type: 'result', content: [{ name: 'a {b}' }] },
      { message_type: 'end-nlweb-response' },
    ]);
    expect(rejected).toBe(0);
    expect(rest).toBe('');
  });

  it('keeps braces and escaped quotes inside strings from ending a value', () => {
    const text = '{"a":"}\\"{"}[1,"]"]';
    expect(splitConcatenatedJson(text).values).toEqual([{ a: '}"{' }, [1, ']']]);
  });

  it('reports a truncated last value as rest and junk between values as rejected', () => {
    const out = splitConcatenatedJson('{"a":1} junk {"b":2}{"c":');
    expect(out.values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(out.rejected).toBe(1);
    expect(out.rest).toBe('{"c":');
  });

  it('property: any concatenation of JSON containers splits back into the same values', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(container, separator), { maxLength: 8 }), (parts) => {
        const text = parts.map(([v, sep]) => JSON.stringify(v) + sep).join('');
        const out = splitConcatenatedJson(text);
        expect(out.values).toEqual(parts.map(([v]) => v));
        expect(out.rejected).toBe(0);
        expect(out.rest).toBe('');
      }),
      { numRuns: 300 },
    );
  });

  it('property: pretty-printed values (indent=2, as the Python servers dump them) split too', () => {
    fc.assert(
      fc.property(fc.array(container, { maxLength: 4 }), (values) => {
        const out = splitConcatenatedJson(values.map((v) => JSON.stringify(v, null, 2)).join(''));
        expect(out.values).toEqual(values);
      }),
      { numRuns: 150 },
    );
  });

  it('property: never throws on any text and returns only objects and arrays', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', '1', 'a', ' ') }), (text) => {
        const out = splitConcatenatedJson(text);
        for (const v of out.values) expect(typeof v === 'object' && v !== null).toBe(true);
        expect(out.rest.length).toBeLessThanOrEqual(text.length);
        expect(text.endsWith(out.rest)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('property: a prefix of a valid concatenation never yields a value that was not written', () => {
    fc.assert(
      fc.property(fc.array(container, { minLength: 1, maxLength: 5 }), fc.nat(), (values, cut) => {
        const text = values.map((v) => JSON.stringify(v)).join('');
        const out = splitConcatenatedJson(text.slice(0, cut % (text.length + 1)));
        expect(out.values).toEqual(values.slice(0, out.values.length));
      }),
      { numRuns: 300 },
    );
  });
});
