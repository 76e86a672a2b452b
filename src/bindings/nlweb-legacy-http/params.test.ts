import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AskRequestSchema } from '../../protocol/nlweb/index.ts';
import { GatewayError } from '../../base/errors.ts';
import { decodePrev, parseLegacyAsk, toAskRequest, toV055Mode, wantsLegacyStream } from './params.ts';

const q = (s: string) => {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(s)) (out[k] ??= []).push(v);
  return out;
};

describe('legacy GET /ask parameters', () => {
  it('maps an old chat page request to a v0.55 ask', () => {
    const params = parseLegacyAsk(q('query=vegan%20ones&site=seriouseats&prev=pumpkin%20pie,muffins&generate_mode=summarize&streaming=false&query_id=q7&conversation_id=conv_1&max_results=5'));
    expect(wantsLegacyStream(params)).toBe(false);
    expect(toAskRequest(params, false)).toEqual({
      query: { text: 'vegan ones', site: 'seriouseats', max_results: 5 },
      context: { prev: ['pumpkin pie', 'muffins'] },
      prefer: { streaming: false, mode: 'list, summarize' },
      meta: { session_context: { conversation_id: 'conv_1' } },
    });
    expect(params.query_id).toBe('q7');
  });

  it('honours the v0.54 fields: max_results (page) vs num_results (depth), start_num, min_score, site=all (issue 17)', () => {
    const request = toAskRequest(parseLegacyAsk(q('query=curry&site=all&max_results=9&num_results=50&start_num=9&min_score=40')), true);
    expect(request.query).toEqual({ text: 'curry', max_results: 9, num_results: 50, min_score: 40 });
    expect(request.meta).toEqual({ start_num: 9 });
  });

  it('reads prev as a JSON array string, as repeated parameters, and with brackets', () => {
    expect(decodePrev(['["a, b","c"]'])).toEqual(['a, b', 'c']);
    expect(decodePrev(['a', 'b,c'])).toEqual(['a', 'b', 'c']);
    expect(decodePrev(['[a,b]'])).toEqual(['a', 'b']);
  });

  it('streaming defaults to true; 0 and false turn it off', () => {
    expect(wantsLegacyStream(parseLegacyAsk(q('query=x')))).toBe(true);
    expect(wantsLegacyStream(parseLegacyAsk(q('query=x&streaming=0')))).toBe(false);
    expect(wantsLegacyStream(parseLegacyAsk(q('query=x&streaming=False')))).toBe(false);
  });

  it('generate_mode wins over mode; generate is answered as a summary; site=all means every site', () => {
    expect(toV055Mode(parseLegacyAsk(q('query=x&mode=list&generate_mode=generate')))).toBe('list, summarize');
    expect(toV055Mode(parseLegacyAsk(q('query=x&mode=summarize')))).toBe('list, summarize');
    expect(toV055Mode(parseLegacyAsk(q('query=x&generate_mode=none')))).toBe('list');
    expect(toAskRequest(parseLegacyAsk(q('query=x&site=all')), true).query.site).toBeUndefined();
  });

  it('refuses a missing query or a non-numeric limit with INVALID_QUERY naming the parameter', () => {
    const err = (s: string) => {
      try {
        parseLegacyAsk(q(s));
      } catch (e) {
        return e as GatewayError;
      }
      throw new Error('accepted');
    };
    expect(err('site=x')).toMatchObject({ code: 'INVALID_QUERY', message: expect.stringContaining('query') });
    expect(err('query=%20%20')).toMatchObject({ code: 'INVALID_QUERY' });
    expect(err('query=x&max_results=lots')).toMatchObject({ code: 'INVALID_QUERY', message: expect.stringContaining('max_results') });
  });

  it('property: any query string either is refused with INVALID_QUERY or becomes a valid v0.55 ask', () => {
    const key = fc.constantFrom('query', 'site', 'prev', 'generate_mode', 'mode', 'streaming', 'decontextualized_query', 'query_id', 'conversation_id', 'max_results', 'num_results', 'min_score', 'start_num', 'other');
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.string()), { maxLength: 12 }), (pairs) => {
        const queries: Record<string, string[]> = {};
        for (const [k, v] of pairs) (queries[k] ??= []).push(v);
        let params;
        try {
          params = parseLegacyAsk(queries);
        } catch (e) {
          expect(e).toBeInstanceOf(GatewayError);
          expect((e as GatewayError).code).toBe('INVALID_QUERY');
          return;
        }
        const request = toAskRequest(params, wantsLegacyStream(params));
        expect(AskRequestSchema.safeParse(request).success).toBe(true);
        expect(request.query.text).toBe(queries.query![0]!.trim());
      }),
      { numRuns: 400 },
    );
  });

  it('property: prev survives a round trip through the JSON array encoding', () => {
    fc.assert(
      fc.property(fc.array(fc.string().filter((s) => s.trim() === s && s.length > 0), { maxLength: 8 }), (prev) => {
        expect(decodePrev([JSON.stringify(prev)])).toEqual(prev);
      }),
    );
  });
});

describe('generate from an old client (issue 26)', () => {
  it('is asked as a summary, with prefer.generate_mode for agents that speak the legacy API', () => {
    const request = toAskRequest(parseLegacyAsk(q('query=x&generate_mode=generate')), true);
    expect(request.prefer).toEqual({ streaming: true, mode: 'list, summarize', generate_mode: 'generate' });
    expect(toAskRequest(parseLegacyAsk(q('query=x&generate_mode=summarize')), true).prefer).toEqual({ streaming: true, mode: 'list, summarize' });
  });
});
