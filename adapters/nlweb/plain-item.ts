import { ResultItemSchema, type ResultItem } from '../../src/protocol/nlweb/index.ts';

/** The item schema's own fields, in its order (zod writes them first, the rest after, as given). */
const SHAPE_KEYS = Object.keys(ResultItemSchema.shape);
const SHAPE = new Set(SHAPE_KEYS);
const TEXT_FIELDS = ['@type', '@id', 'url', 'name', 'description', 'site', 'text'] as const;

/**
 * The common result item (4.1.1) read without zod: every text field absent or a string, `score`
 * absent or a finite number, no `grounding` or `actions` (those go through the schema). Returns what
 * `ResultItemSchema.parse` returns for it, key order included, or undefined to say "ask the schema";
 * `plain-item.property.test.ts` holds it to that. The schema made a parse context, an issue list and
 * a copy per field for every item of every answer: the bulk of mapping a reply (issue 25).
 */
export function plainResultItem(raw: Record<string, unknown>): ResultItem | undefined {
  for (const field of TEXT_FIELDS) {
    const v = raw[field];
    if (v !== undefined && typeof v !== 'string') return undefined;
  }
  const score = raw.score;
  if (score !== undefined && !(typeof score === 'number' && Number.isFinite(score))) return undefined;
  if (raw.grounding !== undefined || raw.actions !== undefined || Object.hasOwn(raw, '__proto__')) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of SHAPE_KEYS) if (raw[k] !== undefined) out[k] = raw[k];
  for (const k of Object.keys(raw)) if (!SHAPE.has(k)) out[k] = raw[k];
  return out as ResultItem;
}
