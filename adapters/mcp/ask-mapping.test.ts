import { describe, expect, it } from 'vitest';
import type { ToolDescription } from '../../src/core/agent.ts';
import { buildAskCall, defaultArguments, pickAskTool, upstreamRequest } from './ask-mapping.ts';

const tool = (name: string, properties: Record<string, unknown> = {}, required: string[] = []): ToolDescription => ({
  name,
  description: name,
  inputSchema: { type: 'object', properties, required },
});
const ask = { query: { text: 'high protein breakfast' }, context: { prev: ['eggs'] } };

describe('which tool the canonical ask calls', () => {
  it('takes the configured tool, else one named ask, else the only tool', () => {
    const tools = [tool('search'), tool('ask'), tool('other')];
    expect(pickAskTool(tools, { tool: 'search' }, 'a').name).toBe('search');
    expect(pickAskTool(tools, undefined, 'a').name).toBe('ask');
    expect(pickAskTool([tool('lookup')], undefined, 'a').name).toBe('lookup');
  });

  it('fails with INVALID_QUERY, naming the agent, when it cannot tell', () => {
    expect(() => pickAskTool([tool('x'), tool('y')], undefined, 'pantry')).toThrow(expect.objectContaining({ code: 'INVALID_QUERY', message: expect.stringContaining('pantry') }));
    expect(() => pickAskTool([tool('x')], { tool: 'missing' }, 'pantry')).toThrow(expect.objectContaining({ code: 'INVALID_QUERY' }));
  });
});

describe('default arguments', () => {
  it('passes the whole NLWeb request to a tool that takes an object query (Appendix A)', () => {
    expect(defaultArguments(tool('ask', { query: { type: 'object' } }), ask)).toEqual(ask);
  });

  it('puts the text into the preferred required string argument', () => {
    expect(defaultArguments(tool('s', { limit: { type: 'number' }, q: { type: 'string' }, lang: { type: 'string' } }, ['q', 'lang']), ask)).toEqual({ q: 'high protein breakfast' });
    expect(defaultArguments(tool('s', { topic: { type: 'string' } }, ['topic']), ask)).toEqual({ topic: 'high protein breakfast' });
    expect(defaultArguments(tool('s', { prompt: { type: ['string', 'null'] } }), ask)).toEqual({ prompt: 'high protein breakfast' });
    expect(defaultArguments(tool('s'), ask)).toEqual({ query: 'high protein breakfast' });
  });

  it('uses the configured template when there is one', () => {
    expect(buildAskCall([tool('search')], { tool: 'search', arguments: { text: '{{query.text}}', history: '{{context.prev}}' } }, ask, 'a')).toEqual({
      tool: 'search',
      arguments: { text: 'high protein breakfast', history: ['eggs'] },
    });
  });
});

describe('the ask as the upstream gets it', () => {
  it("fills context.prev from the conversation and sends back only the upstream's own session_context", () => {
    const request = { query: { text: 'and for dessert?' }, meta: { version: '0.55', session_context: { conversation_id: 'conv_gateway_secret' } } };
    const conversation = { id: 'conv_gateway_secret', prev: ['pasta'], upstreamSession: { upstream_id: 'u1' }, attrs: {} };
    expect(upstreamRequest(request, conversation)).toEqual({ query: request.query, context: { prev: ['pasta'] }, meta: { version: '0.55', session_context: { upstream_id: 'u1' } } });
    expect(upstreamRequest(request, { ...conversation, prev: [], upstreamSession: undefined })).toEqual({ query: request.query, meta: { version: '0.55' } });
  });
});
