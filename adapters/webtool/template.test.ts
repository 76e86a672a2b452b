import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebtoolConfigSchema } from './config.ts';
import { dataToItems } from './items.ts';
import { checkTemplate, renderTemplate } from './template.ts';

describe('ask template', () => {
  const request = { query: { text: '2 cups', unit: 'ml', servings: 4 }, context: { prev: ['pancakes'] }, meta: { session_context: { conversation_id: 'secret' } } };

  it('a whole placeholder keeps the JSON type; a missing value leaves the key out', () => {
    expect(renderTemplate({ text: '{{query.text}}', to: '{{query.unit}}', n: '{{query.servings}}', x: '{{query.nope}}', fixed: 3 }, request)).toEqual({
      text: '2 cups',
      to: 'ml',
      n: 4,
      fixed: 3,
    });
  });

  it('placeholders inside text are interpolated; nested objects and arrays are rendered', () => {
    expect(renderTemplate({ q: 'convert {{query.text}} to {{ query.unit }}{{query.nope}}', list: ['{{context.prev.0}}', '{{query.nope}}'], o: { m: '{{prefer.mode}}' } }, request)).toEqual({
      q: 'convert 2 cups to ml',
      list: ['pancakes'],
      o: {},
    });
  });

  it('never reads meta (session context) and refuses such templates in config', () => {
    expect(renderTemplate({ c: '{{meta.session_context.conversation_id}}' }, request)).toEqual({});
    expect(checkTemplate({ c: '{{meta.user}}' })).toMatch(/must start with query\./);
    expect(checkTemplate({ c: '{{query.text}}' })).toBeNull();
    const bad = WebtoolConfigSchema.safeParse({ url: 'http://x.example/t', ask: { action: 'a', request: { c: '{{meta.user}}' } } });
    expect(bad.success).toBe(false);
  });

  it('property: rendering never throws and never invents placeholders', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), fc.string(), (template, text) => {
        const out = renderTemplate(template, { query: { text } });
        expect(typeof out).toBe('object');
      }),
    );
  });
});

describe('webtool adapter config', () => {
  it('takes an http(s) URL and optional pins, refuses unknown fields', () => {
    expect(WebtoolConfigSchema.safeParse({ url: 'https://tools.example/kitchen', version: '1.0.0', sha256: 'a'.repeat(64) }).success).toBe(true);
    expect(WebtoolConfigSchema.safeParse({ url: 'file:///etc/passwd' }).success).toBe(false);
    expect(WebtoolConfigSchema.safeParse({ url: 'https://tools.example/k', version: '../x' }).success).toBe(false);
    expect(WebtoolConfigSchema.safeParse({ url: 'https://tools.example/k', extra: 1 }).success).toBe(false);
  });
});

describe('data → result items', () => {
  it('an array gives one item each, an object one item, a bare value a PropertyValue', () => {
    expect(dataToItems([{ name: 'a' }, { name: 'b' }, null], 'x')).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(dataToItems({ name: 'a' }, 'x')).toEqual([{ name: 'a' }]);
    expect(dataToItems(42, 'count')).toEqual([{ '@type': 'PropertyValue', name: 'count', value: 42 }]);
    expect(dataToItems(null, 'x')).toEqual([]);
  });
});
