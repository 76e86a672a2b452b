import { describe, expect, it } from 'vitest';
import { acceptedVectors, rejectedVectors } from '../../../test/nlip/vectors.ts';
import { NlipMessageSchema } from './message.ts';
import { parseNlipMessage, parseNlipText } from './parse.ts';
import { messageText } from './read.ts';

describe('parseNlipMessage: interop vectors', () => {
  for (const v of acceptedVectors) {
    it(`accepts ${v.name}`, () => {
      const r = parseNlipMessage(v.body);
      if (!r.ok) throw new Error(`rejected: ${r.error}`);
      expect(messageText(r.message)).toBe(v.text);
      expect(r.control).toBe(v.control);
      expect(r.legacyControl).toBe(v.legacyControl ?? false);
      // What the parser yields is always the strict emitted shape.
      expect(NlipMessageSchema.safeParse(r.message).success).toBe(true);
    });
  }
  for (const v of rejectedVectors) {
    it(`rejects ${v.name}`, () => {
      const r = parseNlipText(v.raw);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toContain(v.says);
    });
  }
});

describe('parseNlipMessage: normalisation', () => {
  it('lowercases keys and format, drops nulls, keeps content and subformat as sent', () => {
    const r = parseNlipMessage({ Format: 'TEXT', SubFormat: 'English', Content: 'Hi', Label: null });
    expect(r).toEqual({ ok: true, control: false, legacyControl: false, message: { format: 'text', subformat: 'English', content: 'Hi' } });
  });

  it('prefers the exactly lowercase key when a peer sends two spellings', () => {
    const r = parseNlipMessage({ Content: 'upper', content: 'lower', format: 'text', subformat: 'english' });
    expect(r.ok && r.message.content).toBe('lower');
  });

  it('turns numbers into text (error codes, labels, subformats) and keeps structured arrays as JSON text', () => {
    const r = parseNlipMessage({
      format: 'error', subformat: 'code', content: 404,
      submessages: [{ format: 'structured', subformat: 'json', content: [1, { a: 2 }], label: 9 }],
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.message.content).toBe('404');
    expect(r.message.submessages).toEqual([{ format: 'structured', subformat: 'json', content: '[1,{"a":2}]', label: '9' }]);
  });

  it('keeps a submessage label and a legacy control flag', () => {
    const r = parseNlipMessage({ control: true, format: 'text', subformat: 'english', content: 'x', submessages: [{ format: 'token', subformat: 'conversation', content: 't', label: 'L' }] });
    if (!r.ok) throw new Error(r.error);
    expect(r.message.control).toBe(true);
    expect(r.message.submessages?.[0]).toEqual({ format: 'token', subformat: 'conversation', content: 't', label: 'L' });
  });

  it('does not let a "__proto__" key reach an object prototype', () => {
    const r = parseNlipMessage(JSON.parse('{"__proto__":{"polluted":1},"format":"text","subformat":"english","content":"x"}'));
    expect(r.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names every problem of a bad submessage with its path', () => {
    const r = parseNlipMessage({ format: 'text', subformat: 'english', content: 'x', submessages: [{ format: 'text', subformat: 'english' }, { content: 'y' }] });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toContain('submessages.0.content: required');
      expect(r.error).toContain('submessages.1.format: required');
    }
  });
});
