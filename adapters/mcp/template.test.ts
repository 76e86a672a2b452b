import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { lookup, renderTemplate } from './template.ts';

const request: AskRequest = {
  query: { text: 'vegan chili', site: 'recipes.example', num_results: 3 },
  context: { prev: ['soup', 'stew'] },
  meta: { version: '0.55' },
};

describe('renderTemplate (config `ask.arguments`)', () => {
  it('keeps the type of a whole placeholder and interpolates inline ones as text', () => {
    expect(
      renderTemplate({ q: '{{query.text}}', n: '{{ query.num_results }}', history: '{{context.prev}}', label: 'Q: {{query.text}} on {{query.site}} after {{context.prev}}' }, request),
    ).toEqual({ q: 'vegan chili', n: 3, history: ['soup', 'stew'], label: 'Q: vegan chili on recipes.example after soup, stew' });
  });

  it('drops a key whose whole placeholder is absent, and renders an absent inline one as empty', () => {
    expect(renderTemplate({ q: '{{query.text}}', lang: '{{prefer.accept-language}}', note: 'lang=[{{prefer.mode}}]' }, request)).toEqual({ q: 'vegan chili', note: 'lang=[]' });
  });

  it('passes the whole request with {{request}} and nests into arrays and objects', () => {
    expect(renderTemplate({ nlweb: '{{request}}', list: ['{{query.site}}', '{{query.nope}}', 1] }, request)).toEqual({ nlweb: request, list: ['recipes.example', 1] });
  });

  it('reads own properties only (no prototype lookups)', () => {
    expect(lookup({ query: {} }, 'query.constructor')).toBeUndefined();
    expect(lookup({ query: { text: 'x' } }, '__proto__.polluted')).toBeUndefined();
  });

  it('renders a template without placeholders to itself, and never throws (property)', () => {
    const noBraces = fc.jsonValue().filter((v) => !JSON.stringify(v).includes('{{'));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), noBraces), (tpl) => {
        expect(renderTemplate(tpl, request)).toEqual(tpl);
      }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (tpl, text) => {
        expect(() => renderTemplate(tpl, { query: { text } })).not.toThrow();
      }),
    );
  });
});
