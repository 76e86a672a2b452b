/**
 * The package's declaration file is generated from src/package-types.ts, not from src/index.ts
 * (see src/lib/declarations.ts): the two must export the same names with the same types. The
 * checks are compile-time (`npm run typecheck`, CI's `tsc --noEmit`); the runtime part compares the
 * names the built entry exports.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as real from '../../src/index.ts';
import type * as declared from '../../src/package-types.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe('src/package-types.ts', () => {
  it('declares createNlgate as src/lib/nlgate.ts implements it, and every other export as src/index.ts', () => {
    expectTypeOf(real.createNlgate).toEqualTypeOf<typeof declared.createNlgate>();
    expectTypeOf(real.functionAgent).toEqualTypeOf<typeof declared.functionAgent>();
    expectTypeOf(real.GatewayConfigSchema).toEqualTypeOf<typeof declared.GatewayConfigSchema>();
    expectTypeOf<real.Nlgate>().toEqualTypeOf<declared.Nlgate>();
    expectTypeOf<real.NlgateOptions>().toEqualTypeOf<declared.NlgateOptions>();
    const sameNames: Same<keyof typeof real, keyof typeof declared> = true;
    expect(sameNames).toBe(true);
    expect(Object.keys(real).sort()).toEqual(['ConfigError', 'GatewayConfigSchema', 'GatewayError', 'createNlgate', 'functionAgent']);
  });
});
