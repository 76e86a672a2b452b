/**
 * An API's reply as NLWeb result items: objects with `@type` are schema.org already and pass as
 * they are; any other object becomes a `Thing` whose `name`, `url` and `description` come from the
 * fields APIs usually call so (`title`, `href`, `summary`, ...), with its own fields kept beside.
 */
import { ResultItemSchema, type ResultItem } from '../../src/protocol/nlweb/index.ts';
import { readResultsPath } from './results-path.ts';

/** Most result items one ask yields (a reply may be a list of any length). */
export const MAX_ITEMS = 100;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const NAME_FIELDS = ['name', 'title', 'label', 'headline', 'displayName', 'id'];
const URL_FIELDS = ['url', 'href', 'link', 'permalink', 'web_url', 'html_url'];
const DESCRIPTION_FIELDS = ['description', 'summary', 'text', 'snippet', 'abstract', 'body'];

function firstText(o: Obj, fields: readonly string[]): string | undefined {
  for (const f of fields) {
    const v = o[f];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

/** Drops the fields that break the result-item schema (a numeric `name`, a string `score`). */
function clean(o: Obj): ResultItem | undefined {
  const first = ResultItemSchema.safeParse(o);
  if (first.success) return first.data;
  const copy: Obj = { ...o };
  for (const issue of first.error.issues) if (typeof issue.path[0] === 'string') delete copy[issue.path[0]];
  const second = ResultItemSchema.safeParse(copy);
  return second.success ? second.data : undefined;
}

/** One value of the reply as a result item. */
export function toItem(value: unknown, operation: string): ResultItem | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObj(value)) return { '@type': 'PropertyValue', name: operation, value } as ResultItem;
  if (typeof value['@type'] === 'string') return clean(value);
  const name = firstText(value, NAME_FIELDS);
  const url = firstText(value, URL_FIELDS);
  const description = firstText(value, DESCRIPTION_FIELDS);
  return clean({ ...value, '@type': 'Thing', ...(name ? { name } : {}), ...(url ? { url } : {}), ...(description ? { description } : {}) });
}

/** The results of an ask: the list at `path` (the whole reply when absent), at most MAX_ITEMS. */
export function replyItems(reply: unknown, operation: string, path?: string): ResultItem[] {
  const at = path === undefined ? reply : readResultsPath(reply, path);
  const values = Array.isArray(at) ? at.slice(0, MAX_ITEMS) : [at];
  return values.map((v) => toItem(v, operation)).filter((i): i is ResultItem => i !== undefined);
}
