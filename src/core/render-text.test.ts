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
