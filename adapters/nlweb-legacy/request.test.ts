import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/core/agent.ts';
import { silentLogger } from '../../src/base/logger.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { buildLegacyParams, encodePrev, legacyMode, mergePrev, toJsonBody, toSearchParams, upstreamConversationId } from './request.ts';

const ctx = (prev: string[] = [], id = 'conv_secret'): CallContext => ({
  signal: new AbortController().signal,
  requestId: 'req1',
  conversation: { id, prev, attrs: {} },
  log: silentLogger,
});

describe('buildLegacyParams', () => {
  it('maps query, site, prev, modes, decontextualized query, ids and limits', () => {
    const request: AskRequest = {
      query: { text: 'and vegan?', site: 'seriouseats', max_results: 5, min_score: 40 },
      context: { prev: ['pumpkin pie'], decontextualized_query: 'vegan pumpkin pie' } as AskRequest['context'],
      prefer: { mode: 'list, summarize' },
    };
    const p = buildLegacyParams(request, ctx(['muffins']), { streaming: true, maxPrev: 10 });
    expect(p).toEqual({
      query: 'and vegan?',
      site: ['seriouseats'],
      prev: ['muffins', 'pumpkin pie'],
      decontextualized_query: 'vegan pumpkin pie',
      streaming: true,
      mode: 'summarize',
      query_id: 'req1',
      conversation_id: upstreamConversationId('conv_secret'),
      max_results: 5,
      min_score: 40,
    });
    const qs = toSearchParams(p, undefined);
    expect(qs.get('generate_mode')).toBe('summarize');
    expect(qs.get('mode')).toBe('summarize');
    expect(qs.get('prev')).toBe('muffins,pumpkin pie');
    expect(qs.get('streaming')).toBe('true');
  });

  it('never sends the gateway conversation id itself upstream', () => {
    const p = buildLegacyParams({ query: { text: 'q' } }, ctx([], 'conv_abcdef'), { streaming: false, maxPrev: 10 });
    expect(p.conversation_id).toMatch(/^[0-9a-f]{32}$/);
    expect(p.conversation_id).not.toContain('abcdef');
  });

  it('sends prev as a JSON array to late-2025 servers and as an array in a POST body', () => {
    expect(encodePrev(['a, b', 'c'], 'C')).toBe('["a, b","c"]');
    expect(encodePrev(['a', 'c'], 'AB')).toBe('a,c');
    const body = toJsonBody(buildLegacyParams({ query: { text: 'q', site: ['x', 'y'] }, context: { prev: ['a'] } }, ctx(), { streaming: false, maxPrev: 10 }));
    expect(body).toMatchObject({ prev: ['a'], site: ['x', 'y'], streaming: 'false', generate_mode: 'list', mode: 'list' });
  });

  it('maps modes: generate beats summarize beats list', () => {
    expect(legacyMode(undefined)).toBe('list');
    expect(legacyMode('list,summarize')).toBe('summarize');
    expect(legacyMode('summarize, generate')).toBe('generate');
  });

  it('sends generate when an old client asked for it (prefer.generate_mode, issue 26)', () => {
    const params = buildLegacyParams({ query: { text: 'q' }, prefer: { mode: 'list, summarize', generate_mode: 'generate' } }, ctx(), { streaming: true, maxPrev: 10 });
    expect(params.mode).toBe('generate');
  });
});

describe('mergePrev', () => {
  it('property: no repeats, no blanks, the newest max kept, in order of last asking', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.array(fc.string()), fc.integer({ min: 1, max: 10 }), (conv, client, max) => {
        const merged = mergePrev({ query: { text: 'q' }, context: { prev: client } }, ctx(conv), max);
        expect(new Set(merged).size).toBe(merged.length);
        expect(merged.length).toBeLessThanOrEqual(max);
        for (const m of merged) expect(m.trim()).toBe(m), expect(m.length).toBeGreaterThan(0);
        const all = [...conv, ...client].map((s) => s.trim()).filter((s) => s.length > 0);
        // The newest query is always kept, and the order is that of each query's last asking.
        if (all.length > 0) expect(merged.at(-1)).toBe(all.at(-1));
        for (let i = 1; i < merged.length; i++) expect(all.lastIndexOf(merged[i - 1]!)).toBeLessThan(all.lastIndexOf(merged[i]!));
        expect(merged.length).toBe(Math.min(max, new Set(all).size));
      }),
    );
  });
});

describe('toSearchParams', () => {
  it('property: every parameter survives the query string', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.array(fc.string({ minLength: 1 }), { maxLength: 3 }), fc.array(fc.string({ minLength: 1 }), { maxLength: 4 }), (query, site, prev) => {
        const p = { query, site, prev, streaming: true, mode: 'list', query_id: 'r' };
        const back = new URLSearchParams(toSearchParams(p, 'C').toString());
        expect(back.get('query')).toBe(query);
        expect(back.getAll('site')).toEqual(site);
        if (prev.length > 0) expect(JSON.parse(back.get('prev')!)).toEqual(prev);
      }),
    );
  });
});
