import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSemver, isSemver, latestVersion } from './semver.ts';

describe('semantic versions', () => {
  it('accepts semver.org versions and rejects near misses', () => {
    for (const v of ['0.0.0', '1.2.3', '10.20.30', '1.0.0-alpha.1', '1.0.0+build.5', '1.0.0-rc.1+h.3fa2']) expect(isSemver(v)).toBe(true);
    for (const v of ['1', '1.2', 'v1.2.3', '01.2.3', '1.2.3-', '1.2.3+', '1.2.3.4', '', 'latest', '1.0.0-01']) expect(isSemver(v)).toBe(false);
  });

  it('orders by precedence, ignoring build metadata (semver.org 11)', () => {
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.1.0', '2.0.0'];
    for (let i = 0; i + 1 < ordered.length; i++) expect(compareSemver(ordered[i]!, ordered[i + 1]!)).toBe(-1);
    expect(compareSemver('1.0.0+a', '1.0.0+b')).toBe(0);
    expect(latestVersion(['1.10.0', '1.9.3', '1.2.0'])).toBe('1.10.0');
    expect(latestVersion([])).toBeUndefined();
  });

  it('property: compareSemver is antisymmetric and generated versions are valid', () => {
    const version = fc
      .tuple(fc.nat(50), fc.nat(50), fc.nat(50), fc.option(fc.constantFrom('alpha', 'beta.2', 'rc.1', '1'), { nil: undefined }))
      .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre ? `-${pre}` : ''}`);
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(isSemver(a)).toBe(true);
        expect(compareSemver(a, b)).toBe(-compareSemver(b, a) || 0);
      }),
    );
  });

  it('property: arbitrary strings never throw', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      expect(typeof isSemver(a)).toBe('boolean');
      expect([-1, 0, 1]).toContain(compareSemver(a, b));
    }));
  });
});
