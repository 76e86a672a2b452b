import MiniSearch, { type SearchResult } from 'minisearch';
import { SCORE_MAX } from '../../src/protocol/nlweb/index.ts';
import { fuzzyEdits, planQuery, prefixAllowed } from './bounds.ts';
import type { CatalogEntry } from './load.ts';
import { matchOf, rankHits, type Facets, type RankedHit } from './rank.ts';
import { firstText, indexTerm, textsOf, tokenize } from './text.ts';

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

/** One search hit: the entry, its score on the gateway's 0-100 scale and the raw BM25 score it came from. */
export type SearchHit = RankedHit;

export interface CatalogSearchOptions {
  /** Only entries passing this are returned. */
  filter?: (entry: CatalogEntry) => boolean;
}

/** "https://schema.org/GlutenFreeDiet" → "Gluten Free", so "gluten free soup" finds it. */
function dietWords(diet: string): string {
  return diet
    .replace(/^.*[/:]/, '')
    .replace(/Diet$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2');
}

/** A type name without its vocabulary prefix ("https://schema.org/Event" → "Event"). */
const typeWords = (type: string): string => type.replace(/^.*[/:]/, '');

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

/** The index terms of a text (as the index itself splits and stems it). */
const termsOf = (text: string): string[] => tokenize(text).map(indexTerm);

/** The diet and type facets of a catalog (rank.ts): which words name them, which entries have them. */
function buildFacets(entries: readonly CatalogEntry[]): Facets {
  const perEntry = new Map<number, Set<string>>();
  const dietTerms = new Set<string>();
  const typeTerms = new Set<string>();
  for (const entry of entries) {
    const diets = textsOf(entry.item.suitableForDiet).flatMap((d) => termsOf(dietWords(d)));
    const types = entry.types.flatMap((t) => termsOf(typeWords(t)));
    diets.forEach((t) => dietTerms.add(t));
    types.forEach((t) => typeTerms.add(t));
    perEntry.set(entry.idx, new Set([...diets, ...types]));
  }
  const none: ReadonlySet<string> = new Set();
  return { dietTerms, typeTerms, of: (entry) => perEntry.get(entry.idx) ?? none };
}

/**
 * Full-text index over catalog entries (minisearch, BM25). Terms are folded and plural-stemmed.
 * A query term the catalog knows is matched exactly; an unknown term (a typo, a half-typed word)
 * falls back to prefix and fuzzy matching within SEARCH_BOUNDS (bounds.ts), so "pasta" never
 * drifts to "paste" while "spagetti" still finds "spaghetti", and no query can make the search
 * do unbounded work. Ranking and scores: rank.ts.
 */
export class CatalogIndex {
  private readonly search_: MiniSearch<CatalogEntry>;
  private readonly vocabulary = new Set<string>();
  private readonly entries: readonly CatalogEntry[];
  private readonly byIdx: ReadonlyMap<number, CatalogEntry>;
  private readonly facets: Facets;

  constructor(entries: readonly CatalogEntry[]) {
    this.entries = entries;
    this.byIdx = new Map(entries.map((e) => [e.idx, e]));
    this.facets = buildFacets(entries);
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
        // Query terms arrive already planned: folded, stop-worded, stemmed and bounded (planQuery).
        tokenize: (text) => text.split(' ').filter((t) => t.length > 0),
        processTerm: (term) => term,
        prefix: (term) => !this.vocabulary.has(term) && prefixAllowed(term),
        fuzzy: (term) => (this.vocabulary.has(term) ? false : fuzzyEdits(term) || false),
        maxFuzzy: 2,
      },
    });
    this.search_.addAll(entries);
  }

  /**
   * Searches the catalog. `*` lists every entry (score 100, file order). Otherwise a hit must match
   * at least one term of `text`; hits are ranked and scored as rank.ts says.
   */
  search(text: string, options: CatalogSearchOptions = {}): SearchHit[] {
    const keep = options.filter ?? (() => true);
    if (text.trim() === '*') {
      return this.entries.filter(keep).map((entry) => ({ entry, score: SCORE_MAX, raw: 1 }));
    }
    const { terms } = planQuery(text);
    if (terms.length === 0) return [];
    const hits = this.search_
      .search(terms.join(' '), {
        filter: (r) => {
          const entry = this.entryOf(r);
          return entry !== undefined && keep(entry);
        },
      })
      .map((r) => {
        const entry = this.entryOf(r)!;
        return { entry, raw: r.score, ...matchOf(terms, r, entry, this.facets) };
      })
      .filter((h) => h.coverage > 0);
    return rankHits(hits);
  }

  private entryOf(result: SearchResult): CatalogEntry | undefined {
    return this.byIdx.get(result.id as number);
  }
}
