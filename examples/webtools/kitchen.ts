/**
 * "kitchen": a real, offline webtool for cooks — unit conversion and recipe scaling. Two versions
 * are published so clients can pin one: 1.0.0 (convert) and 1.1.0 (convert, convert_text, scale).
 */
import { z } from 'zod';
import type { ActionDefinition, WebtoolVersion } from './webtool-app.ts';
import { convert, defaultTarget, KitchenError, parsePhrase, round, UNIT_IDS, UNITS, unitFromText, type Unit } from './units.ts';

const UnitSchema = z.enum(UNIT_IDS as [Unit, ...Unit[]]).meta({ description: 'A unit id', examples: ['cup', 'ml', 'g', 'F'] });

const ConfigV1 = z.strictObject({
  precision: z.number().int().min(0).max(6).meta({ description: 'Decimals in results', examples: [2] }),
});
const ConfigV2 = ConfigV1.extend({
  system: z.enum(['metric', 'us']).meta({ description: 'Units to convert to when none is asked for' }),
});
type Config = z.infer<typeof ConfigV2>;

/** A measurement as a schema.org QuantitativeValue (so NLWeb clients can show it as an item). */
const QuantitativeValueSchema = z.object({
  '@type': z.literal('QuantitativeValue'),
  name: z.string().meta({ description: 'The conversion as text', examples: ['2 cup = 473.18 ml'] }),
  value: z.number(),
  unitText: z.string(),
});

function quantity(amount: number, from: Unit, to: Unit, precision: number): z.infer<typeof QuantitativeValueSchema> {
  const value = round(convert(amount, from, to), precision);
  return { '@type': 'QuantitativeValue', name: `${amount} ${UNITS[from].label} = ${value} ${UNITS[to].label}`, value, unitText: UNITS[to].label };
}

const convertAction: ActionDefinition<{ precision: number }> = {
  name: 'convert',
  description: 'Convert an amount between kitchen units of the same kind (volume, mass or temperature)',
  request: z.object({
    amount: z.number().meta({ description: 'The amount to convert', examples: [2] }),
    from: UnitSchema,
    to: UnitSchema,
  }),
  response: QuantitativeValueSchema,
  run: (r: { amount: number; from: Unit; to: Unit }, cfg) => quantity(r.amount, r.from, r.to, cfg.precision),
};

const convertTextAction: ActionDefinition<Config> = {
  name: 'convert_text',
  description: 'Convert the quantity in a phrase such as "2 cups to ml" or "350 F in C"',
  request: z.object({
    text: z.string().min(1).meta({ description: 'A phrase with an amount and a unit', examples: ['2 cups to ml'] }),
    to: z.string().optional().meta({ description: 'Target unit when the phrase names none', examples: ['ml'] }),
  }),
  response: z.array(QuantitativeValueSchema),
  run: (r: { text: string; to?: string }, cfg) => {
    const p = parsePhrase(r.text);
    const asked = r.to === undefined ? undefined : unitFromText(r.to);
    if (r.to !== undefined && asked === undefined) throw new KitchenError('UNKNOWN_UNIT', `Unknown unit "${r.to.slice(0, 40)}"`);
    const to = p.to ?? asked ?? defaultTarget(p.from, cfg.system);
    return [quantity(p.amount, p.from, to, cfg.precision)];
  },
};

const IngredientSchema = z.object({
  name: z.string().min(1).meta({ examples: ['flour'] }),
  amount: z.number().positive().meta({ examples: [250] }),
  unit: z.string().optional().meta({ examples: ['g'] }),
});

const scaleAction: ActionDefinition<Config> = {
  name: 'scale',
  description: 'Scale a recipe\'s ingredient amounts from one number of servings to another',
  request: z.object({
    ingredients: z.array(IngredientSchema).min(1).max(100),
    from_servings: z.number().int().min(1).max(1000).meta({ examples: [4] }),
    to_servings: z.number().int().min(1).max(1000).meta({ examples: [6] }),
  }),
  response: z.object({ factor: z.number(), servings: z.number().int(), ingredients: z.array(IngredientSchema) }),
  run: (r: { ingredients: z.infer<typeof IngredientSchema>[]; from_servings: number; to_servings: number }, cfg) => {
    const factor = r.to_servings / r.from_servings;
    return {
      factor: round(factor, 4),
      servings: r.to_servings,
      ingredients: r.ingredients.map((i) => ({ ...i, amount: round(i.amount * factor, cfg.precision) })),
    };
  },
};

/** The published versions of the kitchen webtool, oldest first. */
export const kitchenVersions: WebtoolVersion[] = [
  {
    name: 'kitchen',
    description: 'Kitchen unit conversion',
    version: '1.0.0',
    config: ConfigV1,
    defaultConfig: { precision: 2 },
    actions: [convertAction],
  },
  {
    name: 'kitchen',
    description: 'Kitchen helper: unit conversion and recipe scaling',
    version: '1.1.0',
    config: ConfigV2,
    defaultConfig: { precision: 2, system: 'metric' },
    actions: [convertAction, convertTextAction, scaleAction],
  },
];
