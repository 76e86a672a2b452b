import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AskRequestSchema } from '../../protocol/nlweb/index.ts';
import { AskToolInputSchema, MAX_TOOL_NAME, askTool, awaitTool, publishedName } from './tools.ts';

describe('the ask and await tools (NLWeb v0.55 Appendix A)', () => {
  it('publishes the A.1 input schema from the zod schema', () => {
    const schema = askTool('Recipes').inputSchema as Record<string, any>;
    expect(schema.required).toEqual(['query']);
    expect(schema.properties.query).toMatchObject({ type: 'object', description: 'The query object containing text and filters', required: ['text'] });
    expect(Object.keys(schema.properties.query.properties)).toEqual(['text', 'itemType', 'site']);
    expect(Object.keys(schema.properties)).toEqual(['query', 'context', 'prefer', 'meta']);
  });

  it('publishes the A.2 input schema', () => {
    const t = awaitTool();
    expect(t.description).toBe('Check status or cancel a long-running promise.');
    expect(t.inputSchema).toMatchObject({ required: ['promise_token', 'action'], properties: { action: { type: 'string', enum: ['checkin', 'cancel'] }, meta: { type: 'object' } } });
  });

  it('accepts the arguments of the Appendix A.3 and C examples', () => {
    const a3 = { query: { text: 'Find high protein recipes' }, context: { '@type': 'UserDiet', restrictions: ['vegan'] } };
    const c1 = { query: { text: 'healthy breakfast recipes with eggs', site: 'breakfast-central.com' }, meta: { version: '0.55' } };
    for (const args of [a3, c1]) {
      expect(AskToolInputSchema.safeParse(args).success).toBe(true);
      expect(AskRequestSchema.safeParse(args).success).toBe(true);
    }
  });
});

describe('published tool names', () => {
  it('keeps the gateway name, avoids ask/await, and shortens long names with a hash', () => {
    expect(publishedName({ name: 'search', agent: 'a', toolName: 'search' }, new Set(['ask', 'await']))).toBe('search');
    expect(publishedName({ name: 'ask', agent: 'pantry', toolName: 'ask' }, new Set(['ask', 'await']))).toBe('pantry__ask');
    // Two long tools whose cut-down names collide: the second gets a hash of its full identity.
    const cut = `${'a'.repeat(40)}__${'b'.repeat(60)}`.slice(0, 64);
    const second = publishedName({ name: cut, agent: 'a'.repeat(40), toolName: `${'b'.repeat(60)}2` }, new Set([cut]));
    expect(second).toMatch(/^a{40}__b{13}_[0-9a-f]{8}$/);
  });

  it('are unique, at most 64 characters, and never ask or await (property)', () => {
    const ident = fc.stringMatching(/^[a-z0-9_-]{1,70}$/);
    fc.assert(
      fc.property(fc.array(fc.record({ agent: ident, toolName: ident })), (tools) => {
        const taken = new Set(['ask', 'await']);
        for (const t of tools) {
          const name = publishedName({ ...t, name: `${t.agent}__${t.toolName}`.slice(0, MAX_TOOL_NAME) }, taken);
          expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
          if (taken.has(name)) continue; // the same agent/tool twice: a hash cannot tell them apart either
          taken.add(name);
        }
        expect(taken.size).toBeLessThanOrEqual(tools.length + 2);
      }),
    );
  });
});
