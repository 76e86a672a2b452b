import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { CatalogAgent } from './agent.ts';
import { fuzzyEdits, planQuery, prefixAllowed, SEARCH_BOUNDS } from './bounds.ts';
import { loadCatalogFile } from './load.ts';

const recipes = loadCatalogFile(join(import.meta.dirname, '../../examples/catalog/recipes.jsonl'));
const agent = new CatalogAgent({ name: 'recipes' }, recipes);

async function ask(text: string): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  const ctx = { signal: new AbortController().signal, requestId: 'bounds', log: silentLogger };
  for await (const e of agent.ask({ query: { text }, context: { prev: ['curry'] } }, ctx)) out.push(e);
  return out;
}

/** An 850 KB query of many different words (issue 11 blocked /healthz for ~5 s with one). */
const manyWords = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}xy`).join(' ');

describe('catalog search is bounded (issue 11)', () => {
  it('regression: a 60,000-character word is searched as one short exact term, no fuzzy or prefix work', async () => {
    const plan = planQuery('a'.repeat(60_000));
    expect(plan).toEqual({ terms: ['a'.repeat(SEARCH_BOUNDS.maxTermChars)], truncated: true });
    expect(fuzzyEdits(plan.terms[0]!)).toBe(0);
    expect(prefixAllowed(plan.terms[0]!)).toBe(false);
    const events = await ask('a'.repeat(60_000));
    expect(events.map((e) => e.type)).toEqual(['start', 'error', 'complete']);
    expect(events[1]).toMatchObject({ code: 'NO_RESULTS' });
  });

  it('regression: a 100,000-character word answers NO_RESULTS, not RangeError/INTERNAL_ERROR', async () => {
    const events = await ask('spaghetti'.repeat(11_112));
    expect(events[1]).toMatchObject({ type: 'error', code: 'NO_RESULTS' });
  });

  it('regression: an 850 KB multi-word query reads at most maxQueryChars and maxTerms terms', async () => {
    expect(manyWords.length).toBeGreaterThan(800_000);
    const plan = planQuery(manyWords);
    expect(plan.truncated).toBe(true);
    expect(plan.terms).toHaveLength(SEARCH_BOUNDS.maxTerms);
    expect(plan.terms[0]).toBe('w0xy');
    const events = await ask(`curry ${manyWords}`);
    expect(events.filter((e) => e.type === 'result').length).toBeGreaterThan(0); // "curry" is among the terms read
  });

  it('keeps typo tolerance for words of ordinary length, at most maxEdits edits', () => {
    expect(fuzzyEdits('spagetti')).toBe(2);
    expect(fuzzyEdits('cury')).toBe(1);
    expect(fuzzyEdits('pho')).toBe(0);
    expect(fuzzyEdits('x'.repeat(SEARCH_BOUNDS.fuzzyMaxChars + 1))).toBe(0);
    expect(prefixAllowed('foc')).toBe(true);
  });
});
