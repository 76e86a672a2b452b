import type { SearchHit } from './search.ts';
import { firstText } from './text.ts';

/** How many result names the summary quotes. */
const NAMED = 3;

/** "Recipe" → "recipes", "Party" → "parties", "Class" → "classes"; singular when there is one. */
function typeNoun(type: string, count: number): string {
  const word = type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  if (count === 1) return word;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** The most frequent value and how often it occurs (first seen wins a tie, so the output is stable). */
function mostCommon(values: Array<string | undefined>): [string, number] | undefined {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: [string, number] | undefined;
  for (const [v, n] of counts) if (best === undefined || n > best[1]) best = [v, n];
  return best;
}

/** Minutes in an ISO 8601 duration such as `PT1H20M` (days and seconds too); undefined if unreadable. */
export function durationMinutes(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value.trim());
  if (!m || value.trim() === 'P' || value.trim().endsWith('T')) return undefined;
  const [d, h, min, s] = [m[1], m[2], m[3], m[4]].map((x) => Number(x ?? 0)) as [number, number, number, number];
  return d * 1440 + h * 60 + min + Math.round(s / 60);
}

/** An item's total time: `totalTime`, else `prepTime` + `cookTime`. */
function totalMinutes(item: Record<string, unknown>): number | undefined {
  const total = durationMinutes(item.totalTime);
  if (total !== undefined) return total;
  const prep = durationMinutes(item.prepTime);
  const cook = durationMinutes(item.cookTime);
  return prep === undefined && cook === undefined ? undefined : (prep ?? 0) + (cook ?? 0);
}

function listNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

function quote(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return `"${t.length > 80 ? `${t.slice(0, 79)}…` : t}"`;
}

/**
 * An extractive summary of a result set (NLWeb 4.1.1 "summarize"): how many items matched, their
 * common cuisine, the top names, and the quickest recipe. Deterministic, no model involved.
 * `all` is every hit after filtering; `shown` is the page being returned.
 */
export function summarizeHits(queryText: string, all: readonly SearchHit[], shown: readonly SearchHit[]): string {
  const type = mostCommon(all.map((h) => h.entry.types[0]))?.[0] ?? 'Item';
  const parts = [`Found ${all.length} ${typeNoun(type, all.length)} for ${quote(queryText)}`];
  const cuisine = mostCommon(all.map((h) => firstText(h.entry.item.recipeCuisine)));
  if (cuisine && all.length > 1 && cuisine[1] === all.length) parts[0] += `, all ${cuisine[0]}`;
  else if (cuisine && all.length > 2 && cuisine[1] * 2 >= all.length) parts[0] += `, mostly ${cuisine[0]}`;
  parts[0] += '.';

  const names = shown.map((h) => firstText(h.entry.item.name) ?? firstText(h.entry.item.headline)).filter((n) => n !== undefined);
  if (names.length > 0) parts.push(`${names.length === 1 ? 'Top match' : 'Top matches'}: ${listNames(names.slice(0, NAMED))}.`);

  const timed = shown
    .map((h) => ({ name: firstText(h.entry.item.name), minutes: totalMinutes(h.entry.item) }))
    .filter((t): t is { name: string; minutes: number } => t.name !== undefined && t.minutes !== undefined && t.minutes > 0);
  if (timed.length > 1) {
    const quickest = timed.reduce((a, b) => (b.minutes < a.minutes ? b : a));
    parts.push(`Quickest: ${quickest.name} (${quickest.minutes} min).`);
  }
  return parts.join(' ');
}
