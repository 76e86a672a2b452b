import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ActionSchema, ResultItemSchema, type ResultItem } from '../protocol/nlweb/index.ts';
import { attachActions, prefillArguments } from './actions.ts';
import type { PublishedTool } from './gateway-types.ts';

const scale: PublishedTool = {
  agent: 'kitchen',
  toolName: 'scale',
  name: 'kitchen__scale',
  description: 'Scale a recipe',
  inputSchema: { type: 'object', properties: { name: { type: 'string' }, servings: { type: 'integer' }, url: {} } },
};
const recipe: ResultItem = { '@type': 'Recipe', '@id': 'urn:r:1', name: 'Pancakes', url: 'https://x.example/p', score: 0.9, servings: 4 } as ResultItem;

describe('attachActions (NLWeb 5)', () => {
  it('adds an HTTP action on the webtool endpoint and an MCP action naming the gateway tool', () => {
    const out = attachActions(recipe, 'kitchen', [scale], 'https://gw.example/');
    expect(out.actions).toEqual([
      {
        name: 'scale',
        description: 'Scale a recipe',
        protocol: 'HTTP',
        method: 'POST',
        endpoint: 'https://gw.example/webtools/kitchen',
        headers: { 'Content-Type': 'application/json' },
        params: { action: 'scale', request: { name: 'Pancakes', servings: 4, url: 'https://x.example/p' } },
      },
      { name: 'scale', description: 'Scale a recipe', protocol: 'MCP', server: 'https://gw.example/mcp', tool: 'kitchen__scale', arguments: { name: 'Pancakes', servings: 4, url: 'https://x.example/p' } },
    ]);
    for (const a of out.actions!) expect(ActionSchema.safeParse(a).success).toBe(true);
    expect(recipe.actions).toBeUndefined(); // pure
  });

  it('leaves items alone when the agent has no tools, for summaries, and for other agents’ tools', () => {
    expect(attachActions(recipe, 'kitchen', [], 'https://gw.example')).toBe(recipe);
    expect(attachActions(recipe, 'recipes', [scale], 'https://gw.example')).toBe(recipe);
    const summary = { '@type': 'SearchSummary', text: 'Three pancake recipes' } as ResultItem;
    expect(attachActions(summary, 'kitchen', [scale], 'https://gw.example')).toBe(summary);
  });

  it('keeps existing actions, never duplicates one, skips ask/await', () => {
    const once = attachActions(recipe, 'kitchen', [scale], 'https://gw.example');
    expect(attachActions(once, 'kitchen', [scale], 'https://gw.example')).toBe(once);
    const reserved = { ...scale, toolName: 'ask', name: 'kitchen__ask' };
    const out = attachActions(recipe, 'kitchen', [reserved, scale], 'https://gw.example');
    expect(out.actions).toHaveLength(2);
    expect(out.actions!.some((a) => a.name === 'ask')).toBe(false);
  });

  it('only 5 of 16 tools appear as result actions (issue 18 item 7): every tool of the agent does', () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => ({ ...scale, toolName: `t${i}`, name: `kitchen__t${i}` }));
    const out = attachActions(recipe, 'kitchen', sixteen, 'https://gw.example');
    expect(new Set(out.actions!.filter((a) => a.protocol === 'MCP').map((a) => a.name))).toEqual(new Set(sixteen.map((t) => t.toolName)));
    expect(out.actions).toHaveLength(32);
  });

  it('prefills only primitive values of the declared type', () => {
    expect(prefillArguments({ name: 'x', servings: 2.5 } as ResultItem, scale.inputSchema)).toEqual({ name: 'x' });
    expect(prefillArguments({ name: { a: 1 } } as unknown as ResultItem, scale.inputSchema)).toEqual({});
    expect(prefillArguments(recipe, { type: 'object' })).toEqual({});
  });

  it('property: a valid result item stays valid and gains validating actions', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), fc.webUrl(), (extra, url) => {
        const item = { ...extra, '@type': 'Thing' } as ResultItem;
        delete (item as Record<string, unknown>).actions;
        // Only items that are valid to begin with (e.g. `name` a string) must stay valid.
        fc.pre(ResultItemSchema.safeParse(item).success);
        const out = attachActions(item, 'kitchen', [scale], url);
        expect(ResultItemSchema.safeParse(out).success).toBe(true);
        expect(out.actions).toHaveLength(2);
      }),
    );
  });
});
