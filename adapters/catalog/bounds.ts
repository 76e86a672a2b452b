import { fold, stem, STOP_WORDS, tokenize } from './text.ts';

/**
 * Bounds on the work one query can cost (issue 11: a 60,000-character word used to block the event
 * loop for seconds and grow the heap by gigabytes, because typo-tolerant search sizes its work by
 * term length). Every query, whatever its size, is planned within these caps before the index sees it.
 */
export const SEARCH_BOUNDS = {
  /** Only this much of the query text is read: a question longer than a page is not a better question. */
  maxQueryChars: 1000,
  /** At most this many distinct terms are searched (the first ones). */
  maxTerms: 12,
  /** A longer term is cut to this length (no word worth finding is longer). */
  maxTermChars: 32,
  /** Prefix completion only for terms of this length range. */
  prefixMinChars: 3,
  prefixMaxChars: 20,
  /** Fuzzy (typo) matching only for terms of this length range, and with at most this many edits. */
  fuzzyMinChars: 4,
  fuzzyMaxChars: 20,
  maxEdits: 2,
} as const;

/** What the index will search for one query: the terms and how loosely each may match. */
export interface QueryPlan {
  terms: string[];
  /** The query was longer than the caps allow (text, term count or term length): some of it was not searched. */
  truncated: boolean;
}

/**
 * The searched terms of a query, within SEARCH_BOUNDS: folded, stop words dropped (a query made only
 * of stop words keeps them, so "what is good?" still searches for something), plural-stemmed,
 * distinct, long terms cut, at most `maxTerms`.
 */
export function planQuery(text: string): QueryPlan {
  const head = text.length > SEARCH_BOUNDS.maxQueryChars ? text.slice(0, SEARCH_BOUNDS.maxQueryChars) : text;
  const tokens = tokenize(head);
  const cut = tokens.some((w) => w.length > SEARCH_BOUNDS.maxTermChars);
  // Folding can lengthen a word (decomposed accents are dropped after NFD), so the cut comes after it too.
  const words = tokens.map((w) => fold(w.slice(0, SEARCH_BOUNDS.maxTermChars)).slice(0, SEARCH_BOUNDS.maxTermChars));
  const meaningful = words.filter((w) => !STOP_WORDS.has(w));
  const all = [...new Set((meaningful.length > 0 ? meaningful : words).map(stem))];
  const terms = all.slice(0, SEARCH_BOUNDS.maxTerms);
  return { terms, truncated: cut || head.length < text.length || all.length > terms.length };
}

/** Whether an unknown term may complete as a prefix (a half-typed word). */
export function prefixAllowed(term: string): boolean {
  return term.length >= SEARCH_BOUNDS.prefixMinChars && term.length <= SEARCH_BOUNDS.prefixMaxChars;
}

/** The edit distance an unknown term may be matched within (about one per five letters, at most maxEdits); 0 = exact only. */
export function fuzzyEdits(term: string): number {
  if (term.length < SEARCH_BOUNDS.fuzzyMinChars || term.length > SEARCH_BOUNDS.fuzzyMaxChars) return 0;
  return Math.min(SEARCH_BOUNDS.maxEdits, Math.max(1, Math.round(term.length * 0.2)));
}
