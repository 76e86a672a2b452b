/**
 * Text helpers shared by the catalog index and its filters: one way to fold, tokenize and stem text,
 * so a query term and an indexed term meet in the same form.
 */

/**
 * Words dropped from queries (never from the index): they say how to ask, not what to find.
 * "without" and "no" are kept on purpose: dropping them would turn "without dairy" into "dairy".
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ('a about also an and any are as at be best but by can could do does find for from get give good had has ' +
    'have how i in into is it just like looking me my need of on or our please recipe recipes really show ' +
    'some something that the these this those to us very want we what which with would you').split(' '),
);

/** Same split as MiniSearch's default tokenizer: Unicode whitespace and punctuation. */
const SPLIT = /[\n\r\p{Z}\p{P}]+/u;

/** Lower-cases and strips diacritics ("Gruyère" → "gruyere") so accents never block a match. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/**
 * A deliberately light plural stemmer: drops one trailing "s" (not after s, u or i: "glass",
 * "hummus", "skis"). It only has to agree with itself, since index and query both go through it.
 */
export function stem(term: string): string {
  if (term.length > 3 && term.endsWith('s') && !/[sui]s$/.test(term)) return term.slice(0, -1);
  return term;
}

/** Splits text into raw words (the index and the query split alike). */
export function tokenize(text: string): string[] {
  return text.split(SPLIT).filter((t) => t.length > 0);
}

/** One indexed term: folded and stemmed. */
export function indexTerm(word: string): string {
  return stem(fold(word));
}


/**
 * The searchable text of a JSON value: strings and numbers, arrays flattened, objects' values
 * (not their `@` keys, not URLs) down to a small depth. Used for indexing and for filters.
 */
export function textsOf(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return value.length > 0 ? [value] : [];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (depth >= 3 || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v) => textsOf(v, depth + 1));
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith('@')) continue;
    if (typeof v === 'string' && /^https?:\/\//i.test(v)) continue;
    out.push(...textsOf(v, depth + 1));
  }
  return out;
}

/** The first string a JSON-LD value holds: a string, the first string of an array, or an `@value`. */
export function firstText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 0 ? value : undefined;
  if (Array.isArray(value)) {
    for (const v of value) {
      const s = firstText(v);
      if (s !== undefined) return s;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object' && '@value' in value) return firstText(value['@value']);
  return undefined;
}

/** True for a JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
