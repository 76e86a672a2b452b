import MiniSearch, { type Query as MiniQuery, type SearchResult } from 'minisearch';
import type { CatalogEntry } from './load.ts';
import { firstText, indexTerm, queryTerms, textsOf, tokenize } from './text.ts';

/** The indexed fields and their weights: a match in the name counts most. */
const FIELD_BOOSTS = {
  name: 3,
  keywords: 1.5,
  recipeCuisine: 1.5,
  recipeCategory: 1.5,
  description: 1,
  recipeIngredient: 1,
  diet: 1,
  location: 1,
  type: 0.5,
} as const;
type Field = keyof typeof FIELD_BOOSTS;
const FIELDS = Object.keys(FIELD_BOOSTS) as Field[];

/** Weight of the previous query's terms when a one-word follow-up borrows them (see CatalogIndex.search). */
export const CONTEXT_WEIGHT = 0.3;

/** One search hit: the entry, its normalised score (0..1) and the raw BM25 score it came from. */
export interface SearchHit {
  entry: CatalogEntry;
  score: number;
  raw: number;
}

export interface CatalogSearchOptions {
  /** Text of an earlier query whose terms join the search at CONTEXT_WEIGHT. */
  contextText?: string;
  /** Only entries passing this are returned. */
  filter?: (entry: CatalogEntry) => boolean;
}

/** The text an entry offers for one indexed field. */
function fieldText(entry: CatalogEntry, field: Field): string {
  const { item } = entry;
  switch (field) {
    case 'name':
      return firstText(item.name) ?? firstText(item.headline) ?? firstText(item.title) ?? '';
    case 'type':
      return entry.types.join(' ');
    case 'diet':
      return textsOf(item.suitableForDiet).map(dietWords).join(' ');
    default:
      return textsOf(item[field]).join(' ');
  }
}

/** "https://schema.org/GlutenFreeDiet" → "Gluten Free", so "gluten free soup" finds it. */
function dietWords(diet: string): string {
  return diet
    .replace(/^.*[/:]/, '')
    .replace(/Diet$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2');
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * Full-text index over catalog entries (minisearch, BM25). Terms are folded and plural-stemmed.
 * A query term the catalog knows is matched exactly; an unknown term (a typo, a half-typed word)
 * falls back to prefix (3+ letters) and fuzzy (4+ letters, about one edit per five letters)
 * matching, so "pasta" never drifts to "paste" while "spagetti" still finds "spaghetti".
 */
export class CatalogIndex {
  private readonly search_: MiniSearch<CatalogEntry>;
  private readonly vocabulary = new Set<string>();
  private readonly entries: readonly CatalogEntry[];
  private readonly byIdx: ReadonlyMap<number, CatalogEntry>;

  constructor(entries: readonly CatalogEntry[]) {
    this.entries = entries;
    this.byIdx = new Map(entries.map((e) => [e.idx, e]));
    this.search_ = new MiniSearch<CatalogEntry>({
      idField: 'idx',
      fields: FIELDS,
      extractField: (entry, field) => (field === 'idx' ? entry.idx : fieldText(entry, field as Field)),
      tokenize,
      processTerm: (word) => {
        const term = indexTerm(word);
        this.vocabulary.add(term);
        return term;
      },
      searchOptions: {
        boost: { ...FIELD_BOOSTS },
        // Query terms arrive already folded, stop-worded and stemmed (queryTerms).
        tokenize: (text) => text.split(' ').filter((t) => t.length > 0),
        processTerm: (term) => term,
        prefix: (term) => !this.vocabulary.has(term) && term.length >= 3,
        fuzzy: (term) => (!this.vocabulary.has(term) && term.length >= 4 ? 0.2 : false),
      },
    });
    this.search_.addAll(entries);
  }

  /**
   * Searches the catalog. `*` lists every entry (score 1, file order). Otherwise a hit must match
   * at least one term of `text`; `contextText` terms only add to the ranking, at CONTEXT_WEIGHT.
   *
   * Score (0..1): the hit's BM25 score relative to the best hit of this search, times the share of
   * the query's own terms it matched. The best hit matching every term scores 1; a hit matching
   * one of two terms scores at most 0.5, so `min_score` means something across queries.
   */
  search(text: string, options: CatalogSearchOptions = {}): SearchHit[] {
    const keep = options.filter ?? (() => true);
    if (text.trim() === '*') {
      return this.entries.filter(keep).map((entry) => ({ entry, score: 1, raw: 1 }));
    }
    const terms = queryTerms(text);
    if (terms.length === 0) return [];
    const own = new Set(terms);
    const extra = options.contextText === undefined ? [] : queryTerms(options.contextText).filter((t) => !own.has(t));
    const query: MiniQuery =
      extra.length === 0
        ? terms.join(' ')
        : {
            combineWith: 'OR',
            queries: [
              terms.join(' '),
              { queries: [extra.join(' ')], boost: scaledBoosts(CONTEXT_WEIGHT) },
            ],
          };
    const results = this.search_
      .search(query, {
        filter: (r) => {
          const entry = this.entryOf(r);
          return entry !== undefined && keep(entry);
        },
      })
      .map((r) => ({ r, matched: r.queryTerms.filter((t) => own.has(t)).length }))
      .filter(({ matched }) => matched > 0);
    const best = results.reduce((max, { r }) => Math.max(max, r.score), 0);
    if (best <= 0) return [];
    return results
      .map(({ r, matched }) => ({
        entry: this.entryOf(r)!,
        raw: r.score,
        score: round3((r.score / best) * (matched / terms.length)),
      }))
      .sort((a, b) => b.score - a.score || b.raw - a.raw || a.entry.idx - b.entry.idx);
  }

  private entryOf(result: SearchResult): CatalogEntry | undefined {
    return this.byIdx.get(result.id as number);
  }
}

function scaledBoosts(weight: number): Record<string, number> {
  return Object.fromEntries(FIELDS.map((f) => [f, FIELD_BOOSTS[f] * weight]));
}
