import type { SearchResult } from 'minisearch';
import { SCORE_MAX } from '../../src/protocol/nlweb/index.ts';
import type { CatalogEntry } from './load.ts';

/**
 * Ranking like a search engine (issue 17: "vegan curry" must not put a chicken curry first).
 *
 * Hits are ordered by coverage, then by the facets they have, then by text relevance:
 * - coverage is the share of the query's terms a hit matches. A term that names a diet or a type the
 *   catalog records in structured form (`suitableForDiet`, `@type`) counts only for items that have
 *   that diet or type; an item that merely mentions the word gets a quarter of the credit.
 * - facets: among hits of equal coverage, those having the diets/types the query names come first
 *   ("vegan curry": vegan dishes before a chicken curry, both matching one of two terms).
 * - relevance is the hit's BM25 score (minisearch, field boosts) relative to the best hit of the same
 *   coverage and facets.
 *
 * Score (0-100, the gateway's one scale: protocol/nlweb/score.ts): `100 × coverage × (0.5 + 0.5 ×
 * relevance)`, never above the score of the hit ranked before it, so a client that sorts by score
 * keeps the catalog's order. The best hit matching every term scores 100; a hit matching one of two
 * terms scores at most 50.
 */

/** Credit for a diet/type term matched only as text by an item that lacks that diet or type. */
const MENTION_CREDIT = 0.25;

/** Structured facets of the catalog: which words name diets and types, and which items have them. */
export interface Facets {
  /** Index terms that name a diet some item is suitable for ("vegan", "gluten", "free", ...). */
  dietTerms: ReadonlySet<string>;
  /** Index terms that name an item type ("event", "article", ...). */
  typeTerms: ReadonlySet<string>;
  /** Per entry: its diet and type terms. */
  of: (entry: CatalogEntry) => ReadonlySet<string>;
}

/** One ranked hit: the entry, its 0-100 score and the raw BM25 score it came from. */
export interface RankedHit {
  entry: CatalogEntry;
  score: number;
  raw: number;
}

/** How well one hit answers the query's terms, before text relevance (see the module comment). */
export interface Match {
  /** Weighted share of the query's terms the hit matches (0..1]. */
  coverage: number;
  /** Share of the diet/type terms the query names that the hit has (1 when it names none). */
  facets: number;
}

/** Scores a hit's match of the query's terms (see the module comment). */
export function matchOf(terms: readonly string[], result: SearchResult, entry: CatalogEntry, facets: Facets): Match {
  const matched = new Set(result.queryTerms);
  const own = facets.of(entry);
  let credit = 0;
  let named = 0;
  let had = 0;
  for (const term of terms) {
    const structured = facets.dietTerms.has(term) || facets.typeTerms.has(term);
    if (structured) named++;
    if (structured && own.has(term)) {
      credit += 1;
      had++;
    } else if (matched.has(term)) credit += structured ? MENTION_CREDIT : 1;
  }
  return { coverage: credit / terms.length, facets: named === 0 ? 1 : had / named };
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

/** Orders hits (coverage, facets, relevance, catalog order) and gives each its 0-100 score. */
export function rankHits(hits: ReadonlyArray<{ entry: CatalogEntry; raw: number } & Match>): RankedHit[] {
  const group = (h: Match) => `${h.coverage}/${h.facets}`;
  const bestRaw = new Map<string, number>();
  for (const h of hits) bestRaw.set(group(h), Math.max(bestRaw.get(group(h)) ?? 0, h.raw));
  const sorted = [...hits].sort((a, b) => b.coverage - a.coverage || b.facets - a.facets || b.raw - a.raw || a.entry.idx - b.entry.idx);
  let ceiling: number = SCORE_MAX;
  return sorted.map((h) => {
    const best = bestRaw.get(group(h)) ?? 0;
    const relevance = best > 0 ? h.raw / best : 1;
    const score = Math.min(ceiling, round1(SCORE_MAX * h.coverage * (0.5 + 0.5 * relevance)));
    ceiling = score;
    return { entry: h.entry, score, raw: h.raw };
  });
}
