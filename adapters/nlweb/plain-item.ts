import { ResultItemSchema, type ResultItem } from '../../src/protocol/nlweb/index.ts';

/** The item schema's own fields, in its order (zod writes them first, the rest after, as given). */
const SHAPE_KEYS = Object.keys(ResultItemSchema.shape);
/** Each schema field's place in that order. */
const RANK = new Map(SHAPE_KEYS.map((k, i) => [k, i]));
const SCORE = RANK.get('score')!;
/** `grounding` and `actions` (and any field added after them) go through the schema. */
const FIRST_STRUCTURED = Math.min(RANK.get('grounding')!, RANK.get('actions')!);

/**
 * The common result item (4.1.1) read without zod: every text field absent or a string, `score`
 * absent or a finite number, no `grounding` or `actions` (those go through the schema). Returns what
 * `ResultItemSchema.parse` returns for it, key order included, or undefined to say "ask the schema";
 * `plain-item.property.test.ts` holds it to that. The schema made a parse context, an issue list and
 * a copy per field for every item of every answer: the bulk of mapping a reply (issue 25).
 *
 * One pass over the item's own keys (an item has four to six), rather than a lookup of each of the
 * schema's ten fields: a missing field is a megamorphic load that walks the prototype chain.
 */
export function plainResultItem(raw: Record<string, unknown>): ResultItem | undefined {
  const keys = Object.keys(raw);
  let last = -1;
  let inOrder = true;
  let extras = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const rank = RANK.get(key);
    if (rank === undefined) {
      if (key === '__proto__') return undefined;
      extras = true;
      continue;
    }
    const value = raw[key];
    if (value === undefined) {
      inOrder = false; // the schema leaves it out
      continue;
    }
    if (rank === SCORE) {
      if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
    } else if (rank >= FIRST_STRUCTURED || typeof value !== 'string') return undefined;
    if (extras || rank < last) inOrder = false;
    last = rank;
  }
  // The schema's fields already first and in its order: the copy is the item as it is.
  if (inOrder) return { ...raw } as ResultItem;
  const slots: unknown[] = new Array(SHAPE_KEYS.length);
  for (const key of keys) {
    const rank = RANK.get(key);
    if (rank !== undefined) slots[rank] = raw[key];
  }
  const out: Record<string, unknown> = {};
  for (let rank = 0; rank < slots.length; rank++) if (slots[rank] !== undefined) out[SHAPE_KEYS[rank]!] = slots[rank];
  if (extras) for (const key of keys) if (!RANK.has(key)) out[key] = raw[key];
  return out as ResultItem;
}
