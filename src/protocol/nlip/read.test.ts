import { describe, expect, it } from 'vitest';
import { conversationTokenPart, jsonPart, nlipMessage, textPart, toWire, tokenPart, uriPart, binaryPart, errorPart } from './build.ts';
import { parseNlipMessage } from './parse.ts';
import {
  authTokens,
  binaryParts,
  conversationTokens,
  jsonParts,
  messageErrors,
  messageLocations,
  messageText,
  messageTokens,
  promiseTokens,
  structuredParts,
} from './read.ts';

const sample = nlipMessage(textPart('vegan soup'), [
  textPart('  under 30 minutes '),
  textPart('sopa', { language: 'spanish' }),
  tokenPart('conversation_peer', 'c1'),
  tokenPart('authorization', 'Bearer abc'),
  tokenPart('promise', 'p1'),
  jsonPart({ itemType: 'Recipe' }, 'filters'),
  jsonPart([1, 2], 'list'),
  { format: 'structured', subformat: 'json', content: '{broken' },
  uriPart('https://example.com/x'),
  { format: 'location', subformat: 'gps', content: '1,2' },
  binaryPart('image/png', Uint8Array.from([1, 2, 3]), 'photo'),
  errorPart('code', 'E42'),
]);

describe('NLIP readers', () => {
  it('joins the text of every text part, in order, optionally of one language', () => {
    expect(messageText(sample)).toBe('vegan soup\nunder 30 minutes\nsopa');
    expect(messageText(sample, { language: 'English', separator: ' ' })).toBe('vegan soup under 30 minutes');
  });
  it('finds tokens by prefix and keeps conversation tokens exactly as received', () => {
    expect(messageTokens(sample).map((t) => t.content)).toEqual(['c1', 'Bearer abc', 'p1']);
    expect(conversationTokens(sample)).toEqual([{ format: 'token', subformat: 'conversation_peer', content: 'c1' }]);
    expect(authTokens(sample)).toEqual(['Bearer abc']);
    expect(promiseTokens(sample)).toEqual(['p1']);
  });
  it('reads structured parts and JSON values with their labels, skipping broken JSON', () => {
    expect(structuredParts(sample, 'uri').map((p) => p.content)).toEqual(['https://example.com/x']);
    expect(jsonParts(sample)).toEqual([{ label: 'filters', value: { itemType: 'Recipe' } }, { label: 'list', value: [1, 2] }]);
  });
  it('reads locations, binaries and errors', () => {
    expect(messageLocations(sample)).toEqual([{ kind: 'gps', latitude: 1, longitude: 2 }]);
    expect(binaryParts(sample)).toEqual([
      { kind: 'image', encoding: 'png', mediaType: 'image/png', subformat: 'image/png', label: 'photo', data: Buffer.from([1, 2, 3]) },
    ]);
    expect(messageErrors(sample)).toEqual([{ subformat: 'code', content: 'E42' }]);
  });
});

describe('NLIP builders emit strictly', () => {
  it('lowercase keys, no nulls, conversation subformat exactly "conversation"', () => {
    const wire = toWire(nlipMessage(textPart('hi'), [conversationTokenPart('t')], { control: true }));
    expect(wire).toEqual({
      messagetype: 'control',
      format: 'text',
      subformat: 'english',
      content: 'hi',
      submessages: [{ format: 'token', subformat: 'conversation', content: 't' }],
    });
  });
  it('emits the legacy control flag only when asked (to peers that used it)', () => {
    expect(toWire(nlipMessage(textPart('x'), [], { control: true, legacyControl: true }))).toMatchObject({ messagetype: 'control', control: true });
    expect(toWire(nlipMessage(textPart('x'), [], { legacyControl: true }))).toEqual({ control: false, format: 'text', subformat: 'english', content: 'x' });
    expect(toWire(nlipMessage(textPart('x')))).not.toHaveProperty('control');
  });
  it('never puts an array or a number in content', () => {
    expect(jsonPart([1]).content).toBe('[1]');
    expect(jsonPart(5).content).toBe('5');
    expect(jsonPart(null).content).toBe('null');
  });
  it('refuses to emit a malformed message (an internal bug never reaches the wire)', () => {
    expect(() => toWire({ format: 'video' as never, subformat: '', content: 'x' })).toThrow();
  });
  it('regression (found by fast-check): a content key named "__proto__" survives emission', () => {
    const content = JSON.parse('{"__proto__":"x","a":1}') as Record<string, unknown>;
    const wire = JSON.stringify(toWire(nlipMessage({ format: 'structured', subformat: 'json', content })));
    expect(wire).toBe('{"format":"structured","subformat":"json","content":{"__proto__":"x","a":1}}');
  });

  it('what it emits parses back unchanged', () => {
    const r = parseNlipMessage(JSON.parse(JSON.stringify(toWire(sample))));
    expect(r.ok && r.message).toEqual(sample);
  });
});
