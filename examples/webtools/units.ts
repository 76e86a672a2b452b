/**
 * Kitchen units: conversions within volume, mass and temperature, and a small parser for phrases
 * such as "2 1/2 cups to ml" or "350 F in C". Pure functions, no I/O.
 */
import { WebtoolFailure } from './failure.ts';

export type Dimension = 'volume' | 'mass' | 'temperature';

interface UnitInfo {
  dimension: Dimension;
  /** Size in the dimension's base unit (ml, g); temperatures convert by formula instead. */
  factor: number;
  label: string;
}

/** The units the kitchen webtool knows, by canonical id. */
export const UNITS = {
  ml: { dimension: 'volume', factor: 1, label: 'ml' },
  l: { dimension: 'volume', factor: 1000, label: 'l' },
  tsp: { dimension: 'volume', factor: 4.92892, label: 'tsp' },
  tbsp: { dimension: 'volume', factor: 14.7868, label: 'tbsp' },
  fl_oz: { dimension: 'volume', factor: 29.5735, label: 'fl oz' },
  cup: { dimension: 'volume', factor: 236.588, label: 'cup' },
  pint: { dimension: 'volume', factor: 473.176, label: 'pint' },
  quart: { dimension: 'volume', factor: 946.353, label: 'quart' },
  gallon: { dimension: 'volume', factor: 3785.41, label: 'gallon' },
  mg: { dimension: 'mass', factor: 0.001, label: 'mg' },
  g: { dimension: 'mass', factor: 1, label: 'g' },
  kg: { dimension: 'mass', factor: 1000, label: 'kg' },
  oz: { dimension: 'mass', factor: 28.3495, label: 'oz' },
  lb: { dimension: 'mass', factor: 453.592, label: 'lb' },
  C: { dimension: 'temperature', factor: 1, label: '°C' },
  F: { dimension: 'temperature', factor: 1, label: '°F' },
} as const satisfies Record<string, UnitInfo>;

export type Unit = keyof typeof UNITS;
export const UNIT_IDS = Object.keys(UNITS) as Unit[];

/** Spellings people use, lower-cased, mapped to a unit id. */
const ALIASES: Record<string, Unit> = {
  ml: 'ml', milliliter: 'ml', milliliters: 'ml', millilitre: 'ml', millilitres: 'ml',
  l: 'l', liter: 'l', liters: 'l', litre: 'l', litres: 'l',
  tsp: 'tsp', teaspoon: 'tsp', teaspoons: 'tsp',
  tbsp: 'tbsp', tbs: 'tbsp', tablespoon: 'tbsp', tablespoons: 'tbsp',
  'fl oz': 'fl_oz', fl_oz: 'fl_oz', 'fluid ounce': 'fl_oz', 'fluid ounces': 'fl_oz',
  cup: 'cup', cups: 'cup',
  pint: 'pint', pints: 'pint', quart: 'quart', quarts: 'quart', gallon: 'gallon', gallons: 'gallon',
  mg: 'mg', milligram: 'mg', milligrams: 'mg',
  g: 'g', gram: 'g', grams: 'g', gr: 'g',
  kg: 'kg', kilo: 'kg', kilos: 'kg', kilogram: 'kg', kilograms: 'kg',
  oz: 'oz', ounce: 'oz', ounces: 'oz',
  lb: 'lb', lbs: 'lb', pound: 'lb', pounds: 'lb',
  c: 'C', '°c': 'C', celsius: 'C', centigrade: 'C',
  f: 'F', '°f': 'F', fahrenheit: 'F',
};

/** A unit id for a spelling ("Tablespoons", "°F"), or undefined. */
export function unitFromText(text: string): Unit | undefined {
  const key = text.trim().toLowerCase().replace(/\.$/, '').replace(/\s+/g, ' ');
  return Object.hasOwn(UNITS, text) ? (text as Unit) : ALIASES[key];
}

/** A domain failure the kitchen webtool reports with its own error code (422). */
export class KitchenError extends WebtoolFailure {}

/** Rounds to `precision` decimals (0..6). */
export function round(value: number, precision: number): number {
  const p = 10 ** precision;
  return Math.round(value * p) / p;
}

/** Converts `amount` from one unit to another of the same dimension; throws INCOMPATIBLE_UNITS otherwise. */
export function convert(amount: number, from: Unit, to: Unit): number {
  const a = UNITS[from];
  const b = UNITS[to];
  if (a.dimension !== b.dimension) {
    throw new KitchenError('INCOMPATIBLE_UNITS', `Cannot convert ${a.dimension} (${a.label}) to ${b.dimension} (${b.label})`);
  }
  if (a.dimension === 'temperature') {
    if (from === to) return amount;
    return from === 'C' ? (amount * 9) / 5 + 32 : ((amount - 32) * 5) / 9;
  }
  return (amount * a.factor) / b.factor;
}

/** The unit a measurement is shown in by default for a measuring system ("us" or "metric"). */
export function defaultTarget(from: Unit, system: 'metric' | 'us'): Unit {
  const dim = UNITS[from].dimension;
  if (system === 'metric') return dim === 'volume' ? 'ml' : dim === 'mass' ? 'g' : 'C';
  return dim === 'volume' ? 'cup' : dim === 'mass' ? 'oz' : 'F';
}

const NUMBER = String.raw`(\d+\s+\d+\/\d+|\d+\/\d+|\d+(?:\.\d+)?|\.\d+)`;
const FRACTIONS: Record<string, string> = { '½': ' 1/2', '¼': ' 1/4', '¾': ' 3/4', '⅓': ' 1/3', '⅔': ' 2/3', '⅛': ' 1/8' };

/** Parses "2", "1/2", "1 1/2" into a number. */
export function parseAmount(text: string): number {
  const parts = text.trim().split(/\s+/);
  return parts.reduce((sum, p) => {
    const [n, d] = p.split('/');
    return sum + (d === undefined ? Number(n) : Number(n) / Number(d));
  }, 0);
}

/** A quantity found in a phrase, plus the unit the phrase asks for ("to ml"), if any. */
export interface ParsedPhrase {
  amount: number;
  from: Unit;
  to?: Unit;
}

/**
 * Reads "2 cups to ml", "350°F in celsius", "1½ lb flour": a number, a unit, optionally
 * "to|in|into <unit>". Throws UNRECOGNISED_QUANTITY when there is no number-and-unit pair.
 */
export function parsePhrase(text: string): ParsedPhrase {
  const normal = text.replace(/[½¼¾⅓⅔⅛]/g, (c) => FRACTIONS[c] ?? c).replace(/°\s*/g, '°');
  const unitWords = Object.keys(ALIASES).sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const unit = `(${unitWords.join('|')})`;
  const quantity = new RegExp(String.raw`${NUMBER}\s*${unit}(?![a-z])`, 'i').exec(normal);
  if (!quantity) {
    throw new KitchenError('UNRECOGNISED_QUANTITY', 'Say an amount and a unit, e.g. "2 cups to ml" or "350 F in C"');
  }
  const target = new RegExp(String.raw`\b(?:to|in|into)\s+${unit}(?![a-z])`, 'i').exec(normal.slice(quantity.index + quantity[0].length));
  const from = unitFromText(quantity[2]!)!;
  const to = target ? unitFromText(target[1]!) : undefined;
  return { amount: parseAmount(quantity[1]!), from, ...(to ? { to } : {}) };
}
