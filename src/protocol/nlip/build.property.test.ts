import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toWire, wireProblem } from './build.ts';
import { NLIP_FORMATS, NlipMessageSchema, type NlipMessage } from './message.ts';

/** A message as the builders make one: every field of the emitted schema right. */
const validPart = fc.record(
  { format: fc.constantFrom(...NLIP_FORMATS), subformat: fc.string(), content: fc.oneof(fc.string(), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 })), label: fc.string() },
  { requiredKeys: ['format', 'subformat', 'content'] },
);
const validMessage = fc
  .tuple(validPart, fc.record({ messagetype: fc.string(), control: fc.boolean(), submessages: fc.array(validPart, { maxLength: 4 }) }, { requiredKeys: [] }))
  .map(([first, rest]) => ({ ...first, ...rest }));
/** JSON-shaped values for any field, right or wrong (what a bug in a builder could put there). */
const anyValue = fc.oneof(fc.constantFrom(...NLIP_FORMATS, 'video', 'TEXT', ''), fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.jsonValue(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }));
const FIELDS = ['messagetype', 'control', 'format', 'subformat', 'content', 'label', 'submessages'] as const;
/** A valid message, or one with a field of it (or of its first submessage) replaced by any value. */
const message = fc.tuple(validMessage, fc.option(fc.tuple(fc.constantFrom(...FIELDS), fc.boolean(), anyValue), { nil: undefined })).map(([m, change]) => {
  if (!change) return m as Record<string, unknown>;
  const [field, inSubmessage, value] = change;
  const subs = (m.submessages ?? []) as Array<Record<string, unknown>>;
  if (inSubmessage && subs.length > 0 && field !== 'submessages' && field !== 'messagetype' && field !== 'control') {
    return { ...m, submessages: [{ ...subs[0], [field]: value }, ...subs.slice(1)] };
  }
  return { ...m, [field]: value };
});

describe('toWire (5) refuses exactly what the emitted schema refuses', () => {
  it('the hand-written check and NlipMessageSchema agree on JSON-shaped messages, right and wrong', () => {
    fc.assert(
      fc.property(message, (m) => {
        const schemaSays = NlipMessageSchema.safeParse(m).success;
        expect(wireProblem(m as unknown as NlipMessage) === undefined).toBe(schemaSays);
        if (schemaSays) expect(NlipMessageSchema.safeParse(toWire(m as unknown as NlipMessage)).success).toBe(true);
        else expect(() => toWire(m as unknown as NlipMessage)).toThrow(/malformed NLIP message/);
      }),
      { numRuns: 3000 },
    );
  });
});
