import { ResultItemSchema, type ResultItem } from '../../src/protocol/nlweb/index.ts';

/** The item schema's own fields, each with its place in the schema's order. */
const RANK = new Map(Object.keys(ResultItemSchema.shape).map((k, i) => [k, i]));
const SCORE = RANK.get('score')!;
/** `grounding` and `actions` (and any field added after them) go through the schema. */
const FIRST_STRUCTURED = Math.min(RANK.get('grounding')!, RANK.get('actions')!);

/**
 * The common result item (4.1.1) read without zod: every text field absent or a string, `score`
 * absent or a finite number, no `grounding` or `actions` (those go through the schema). Returns a
 * copy that `ResultItemSchema.parse` accepts, with the same fields and values as its parse, or
 * undefined to say "ask the schema"; `plain-item.property.test.ts` holds it to that. The schema made
 * a parse context, an issue list and a copy per field for every item of every answer: the bulk of
 * mapping a reply (issue 25).
 *
 * The copy keeps the upstream's key order. zod writes its own fields first; rebuilding each item in
 * that order was half of this read for the items the real NLWeb server sends (`description` after
 * `score`), and a JSON object's member order carries no meaning (RFC 8259 section 4).
 *
 * One pass over the item's own keys (an item has four to six), rather than a lookup of each of the
 * schema's ten fields: a missing field is a megamorphic load that walks the prototype chain.
 */
export function plainResultItem(raw: Record<string, unknown>): ResultItem | undefined {
  const keys = Object.keys(raw);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const rank = RANK.get(key);
    if (rank === undefined) {
      if (key === '__proto__') return undefined;
      continue;
    }
    const value = raw[key];
    if (value === undefined) continue; // absent, as in JSON
    if (rank === SCORE) {
      if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
    } else if (rank >= FIRST_STRUCTURED || typeof value !== 'string') return undefined;
  }
  return { ...raw } as ResultItem;
}
