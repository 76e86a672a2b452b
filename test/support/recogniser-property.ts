import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * For generated bodies that must carry an own `__proto__` member (an object literal cannot hold
 * one, and zod drops it): the generators use PROTO_KEY, and `withOwnProto` renames it in the JSON text.
 */
export const PROTO_KEY = 'zzproto';
export const withOwnProto = (text: string): string => text.replaceAll(`"${PROTO_KEY}"`, '"__proto__"');

/** The JSON value of `text`, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Holds a binding's fast-path recogniser to its schema (issue 25): on every generated input, the
 * parse with the recogniser answers exactly (`toStrictEqual`) what the parse without it answers;
 * and at least `minRecognised` inputs were recognised, so the property is about the fast path.
 */
export function expectRecogniserAgrees<T>(
  inputs: fc.Arbitrary<T>,
  spec: { recognised: (input: T) => boolean; withIt: (input: T) => unknown; without: (input: T) => unknown; minRecognised: number },
): void {
  let recognised = 0;
  fc.assert(
    fc.property(inputs, (input) => {
      if (spec.recognised(input)) recognised++;
      expect(spec.withIt(input)).toStrictEqual(spec.without(input));
    }),
    { numRuns: 4000 },
  );
  expect(recognised).toBeGreaterThan(spec.minRecognised);
}
