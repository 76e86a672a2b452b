import type { Query } from '../../src/protocol/nlweb/index.ts';
import { querySites } from '../../src/protocol/nlweb/index.ts';
import type { CatalogEntry } from './load.ts';
import { fold, isPlainObject, textsOf } from './text.ts';

/** `query.*` keys with their own meaning (3.1 and the interop variants), never treated as field filters. */
const RESERVED_KEYS = new Set(['text', 'site', 'itemType', 'num_results', 'max_results', 'min_score']);

/** The filters one query asks for, as a predicate, plus which `query.*` keys were used and which ignored. */
export interface QueryFilters {
  test: (entry: CatalogEntry) => boolean;
  /** Keys that filtered (`site`, `itemType`, field names). */
  applied: string[];
  /** Extra `query.*` keys that name no field of this catalog (e.g. `price` on recipes): ignored. */
  ignored: string[];
}

/**
 * The top-level fields a `query.*` filter may name: every key some item has, except JSON-LD `@`
 * keys and `site` (which has its own filter). Keyed by lower case so `recipecuisine` also works.
 */
export function filterableFields(entries: readonly CatalogEntry[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (const { item } of entries) {
    for (const key of Object.keys(item)) {
      if (!key.startsWith('@') && key !== 'site' && !fields.has(key.toLowerCase())) fields.set(key.toLowerCase(), key);
    }
  }
  return fields;
}

/** A filter value as folded needles: strings, numbers and booleans, alone or in an array. */
function needles(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list
    .filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map((v) => fold(String(v)).trim())
    .filter((v) => v.length > 0);
}

/** A schema.org type name without its vocabulary prefix, folded ("https://schema.org/Recipe" → "recipe"). */
function typeName(type: string): string {
  return fold(type.replace(/^(https?:\/\/schema\.org\/|schema:)/i, ''));
}

/**
 * Builds the filters of NLWeb 3.1: `query.site` (string or array: the item's site is one of them;
 * a value equal to the agent's own name means the whole catalog), `query.itemType` (the item's
 * `@type`), and any other `query.<field>` naming a top-level field of the items: the field's text
 * (strings, numbers, arrays, nested objects' values) must contain the value, case- and
 * accent-insensitively; an array value matches when any element does.
 */
export function buildFilters(query: Query, fields: ReadonlyMap<string, string>, agentName: string): QueryFilters {
  const tests: Array<(entry: CatalogEntry) => boolean> = [];
  const applied: string[] = [];
  const ignored: string[] = [];

  const self = fold(agentName);
  const sites = new Set(querySites(query).map(fold).filter((s) => s !== self));
  if (sites.size > 0) {
    tests.push((e) => sites.has(fold(e.site)));
    applied.push('site');
  }

  const wanted = new Set(needles(query.itemType).map(typeName));
  if (wanted.size > 0) {
    tests.push((e) => e.types.some((t) => wanted.has(typeName(t))));
    applied.push('itemType');
  }

  for (const [key, value] of Object.entries(query)) {
    if (RESERVED_KEYS.has(key) || value === undefined || value === null) continue;
    const field = fields.get(key.toLowerCase());
    const values = isPlainObject(value) ? [] : needles(value);
    if (field === undefined || values.length === 0) {
      ignored.push(key);
      continue;
    }
    tests.push((e) => {
      const haystack = textsOf(e.item[field]).map(fold);
      return values.some((v) => haystack.some((h) => h.includes(v)));
    });
    applied.push(field);
  }

  return { test: (entry) => tests.every((t) => t(entry)), applied, ignored };
}
