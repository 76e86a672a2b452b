import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convert, KitchenError, parseAmount, parsePhrase, round, UNIT_IDS, UNITS, unitFromText } from './units.ts';

describe('kitchen units', () => {
  it('converts within a dimension', () => {
    expect(round(convert(2, 'cup', 'ml'), 2)).toBe(473.18);
    expect(round(convert(1, 'lb', 'g'), 1)).toBe(453.6);
    expect(convert(350, 'F', 'C')).toBeCloseTo(176.667, 2);
    expect(convert(100, 'C', 'F')).toBe(212);
  });

  it('refuses to convert across dimensions with its own error code', () => {
    expect(() => convert(1, 'cup', 'g')).toThrow(KitchenError);
    try {
      convert(1, 'cup', 'g');
    } catch (e) {
      expect((e as KitchenError).code).toBe('INCOMPATIBLE_UNITS');
    }
  });

  it('reads amounts and phrases', () => {
    expect(parseAmount('1 1/2')).toBe(1.5);
    expect(parsePhrase('2 cups flour to ml')).toEqual({ amount: 2, from: 'cup', to: 'ml' });
    expect(parsePhrase('350°F in celsius')).toEqual({ amount: 350, from: 'F', to: 'C' });
    expect(parsePhrase('1½ lb butter')).toEqual({ amount: 1.5, from: 'lb' });
    expect(parsePhrase('how many grams is 3 tablespoons')).toEqual({ amount: 3, from: 'tbsp' });
    expect(unitFromText('Fluid Ounces')).toBe('fl_oz');
    expect(() => parsePhrase('a pinch of salt')).toThrow('Say an amount and a unit');
  });

  it('property: converting there and back returns the amount', () => {
    fc.assert(
      fc.property(fc.constantFrom(...UNIT_IDS), fc.constantFrom(...UNIT_IDS), fc.double({ min: -1e6, max: 1e6, noNaN: true }), (a, b, x) => {
        fc.pre(UNITS[a].dimension === UNITS[b].dimension);
        expect(convert(convert(x, a, b), b, a)).toBeCloseTo(x, 6);
      }),
    );
  });

  it('property: parsePhrase never throws anything but a KitchenError', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          parsePhrase(s);
        } catch (e) {
          expect(e).toBeInstanceOf(KitchenError);
        }
      }),
    );
  });
});
