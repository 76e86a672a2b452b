import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderResponseText, sentence } from './render-text.ts';

describe('renderResponseText for a promise', () => {
  it('promise text misses a full stop (issue 18 item 7): the message ends as a sentence before "Check back"', () => {
    const promise = (message?: string) => ({ _meta: { response_type: 'promise', version: '0.55' }, promise: { token: 't', ...(message ? { message } : {}) } }) as never;
    expect(renderResponseText(promise('working on it'))).toBe('working on it. Check back with the promise token.');
    expect(renderResponseText(promise('Almost done!'))).toBe('Almost done! Check back with the promise token.');
    expect(renderResponseText(promise())).toBe('The agent is still working on it. Check back with the promise token.');
  });

  it('sentence adds a full stop only where none is', () => {
    expect(sentence('a')).toBe('a.');
    expect(sentence('a. ')).toBe('a.');
    expect(sentence('')).toBe('');
  });
});

describe('renderResponseText for an answer', () => {
  const answer = (results: object[]) => ({ _meta: { response_type: 'answer', version: '0.55' }, results }) as never;
  const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 200 });

  it('an answer rendered two-byte for ASCII items (a separator of ours, U+2014): the text it adds is ASCII', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ name: ascii, description: fc.option(ascii, { nil: undefined }) }), { minLength: 1, maxLength: 8 }), (items) => {
        const text = renderResponseText(answer(items.map((i) => ({ '@type': 'Recipe', ...i }))));
        expect(text).toMatch(/^[\x20-\x7e\n]*$/);
      }),
    );
    expect(renderResponseText(answer([{ name: 'Pasta 1', description: 'Quick.' }]))).toBe('Found 1 result:\n1. Pasta 1 - Quick.');
  });
});
