import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkedHandle } from './linked-read.ts';

describe('linkedHandle', () => {
  it('names the field\'s string when the record is a JSON object holding a non-empty one, else nothing (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom('conversationId', 'c', ''), (value, field) => {
        const raw = JSON.stringify(value);
        const named = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[field] : undefined;
        expect(linkedHandle(raw, field)).toBe(typeof named === 'string' && named !== '' ? named : null);
      }),
    );
  });

  it('names nothing for text that is not JSON, whatever it holds (property)', () => {
    fc.assert(fc.property(fc.string(), (raw) => void expect(linkedHandle(`not json: ${raw}`, 'conversationId')).toBe(null)));
  });

  it('without a field, the whole value is the handle unless empty', () => {
    expect(linkedHandle('conv_123', undefined)).toBe('conv_123');
    expect(linkedHandle('', undefined)).toBeNull();
    expect(linkedHandle('{"conversationId":"x"}', undefined)).toBe('{"conversationId":"x"}');
  });
});
