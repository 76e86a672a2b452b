import { ResultItemSchema, type ResultItem } from '../../src/protocol/nlweb/index.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of a legacy result item the adapter keeps on the canonical item (interop.md table). */
const KEPT_STRINGS = ['url', 'name', 'site', 'description'] as const;

/**
 * The schema.org object inside a legacy result: `schema_object` is an object, a JSON string of one,
 * or (as the reference server stores it) a JSON array whose first object is the item.
 */
export function parseSchemaObject(raw: unknown): Json | undefined {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) value = value.find(isObject);
  if (isObject(value) && Array.isArray(value['@graph'])) value = (value['@graph'] as unknown[]).find(isObject) ?? value;
  return isObject(value) ? value : undefined;
}

/** A schema.org `@type` as one string (`["Recipe","Thing"]` → `Recipe`). */
function firstType(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0) return value;
  if (Array.isArray(value)) return value.find((t): t is string => typeof t === 'string' && t.length > 0);
  return undefined;
}

/** Legacy scores are 0-100 integers, sometimes sent as strings; kept on that scale (docs/legacy.md). */
function toScore(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/**
 * Drops fields the strict result schema rejects (a schema.org `actions` or `grounding` that is not
 * the NLWeb shape), so one odd upstream field never costs the whole item.
 */
function conform(item: Json): ResultItem {
  let candidate = item;
  for (let attempt = 0; attempt < 3; attempt++) {
    const parsed = ResultItemSchema.safeParse(candidate);
    if (parsed.success) return parsed.data;
    const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])));
    candidate = Object.fromEntries(Object.entries(candidate).filter(([k]) => !bad.has(k)));
  }
  return { '@type': typeof item['@type'] === 'string' ? item['@type'] : 'Thing' };
}

/**
 * Turns one legacy result (`url, name, site, score, description, schema_object`, interop.md) into a
 * typed v0.55 item (4.1.1): the schema.org object spread at the top with its own `@type`, the legacy
 * fields laid over it, `@id` from the url. Returns undefined for something that is not an item.
 */
export function legacyItemToResult(raw: unknown): ResultItem | undefined {
  if (!isObject(raw)) return undefined;
  const schema = parseSchemaObject(raw.schema_object) ?? {};
  const item: Json = { ...schema };
  delete item['@context'];
  // The late-2025 wrapper says `"@type":"Item"`; the schema.org object knows the real type.
  const wrapperType = firstType(raw['@type']);
  item['@type'] = firstType(schema['@type']) ?? (wrapperType && wrapperType !== 'Item' ? wrapperType : 'Thing');
  for (const key of KEPT_STRINGS) {
    const v = raw[key];
    if (typeof v === 'string' && v.length > 0) item[key] = v;
    else if (typeof item[key] !== 'string') delete item[key];
  }
  const score = toScore(raw.score);
  if (score !== undefined) item.score = score;
  else delete item.score;
  const id = item.url ?? (typeof schema['@id'] === 'string' ? schema['@id'] : undefined);
  if (typeof id === 'string') item['@id'] = id;
  else delete item['@id'];
  if (!item.url && !item.name && Object.keys(schema).length === 0) return undefined;
  return conform(item);
}

/** A summary as a v0.55 result item (4.1.1: `@type` SearchSummary with `text`). */
export function summaryItem(text: string): ResultItem {
  return { '@type': 'SearchSummary', text };
}
