import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.ts';
import { askEvents, contentItem, toToolResult } from './result-mapping.ts';

const events = (r: Parameters<typeof askEvents>[0]): AgentEvent[] => [...askEvents(r)];

describe('an MCP tool result as canonical events', () => {
  it('reads an NLWeb response from structuredContent (Appendix A.3)', () => {
    const resp = { _meta: { response_type: 'answer', version: '0.55', session_context: { k: 1 }, decontextualized_query: 'q' }, results: [{ '@type': 'Recipe', name: 'Soup' }] };
    expect(events({ structuredContent: resp, content: [{ type: 'text', text: 'Soup' }] })).toEqual([
      { type: 'start', meta: { decontextualized_query: 'q' } },
      { type: 'result', item: { '@type': 'Recipe', name: 'Soup' } },
      { type: 'complete', meta: { session_context: { k: 1 } } },
    ]);
  });

  it('reads an NLWeb response carried as JSON text (Appendix C), response_type in any case', () => {
    const text = JSON.stringify({ _meta: { response_type: 'Promise', version: '0.55' }, promise: { token: 'promise_mealplan_xyz789', estimated_time: 30 } });
    expect(events({ content: [{ type: 'text', text }] })).toEqual([{ type: 'start' }, { type: 'promise', promise: { token: 'promise_mealplan_xyz789', estimated_time: 30 } }]);
    const failure = JSON.stringify({ _meta: { response_type: 'failure', version: '0.55' }, error: { code: 'TOKEN_LIMIT', message: 'Ran out of tokens.' } });
    expect(events({ content: [{ type: 'text', text: failure }] }).at(-1)).toEqual({ type: 'error', code: 'TOKEN_LIMIT', message: 'Ran out of tokens.' });
  });

  it('maps a plain result: a structured list, else typed content items', () => {
    expect(events({ structuredContent: { results: [{ name: 'a' }, { name: 'b' }] } }).filter((e) => e.type === 'result')).toHaveLength(2);
    expect(events({ content: [{ type: 'text', text: '42 degrees' }] })).toEqual([{ type: 'start' }, { type: 'result', item: { '@type': 'Answer', text: '42 degrees' } }, { type: 'complete' }]);
    expect(events({ content: [] }).at(-1)).toMatchObject({ type: 'error', code: 'NO_RESULTS' });
  });

  it('maps isError to a failure with the tool text, cut short', () => {
    const e = events({ isError: true, content: [{ type: 'text', text: 'x'.repeat(2000) }] }).at(-1) as Extract<AgentEvent, { type: 'error' }>;
    expect(e.code).toBe('UPSTREAM_ERROR');
    expect(e.message.length).toBe(500);
  });

  it('types image, audio, links and embedded resources as schema.org items', () => {
    expect(contentItem({ type: 'image', data: 'AAAA', mimeType: 'image/png' })).toEqual({ '@type': 'ImageObject', contentUrl: 'data:image/png;base64,AAAA', encodingFormat: 'image/png' });
    expect(contentItem({ type: 'resource_link', uri: 'file:///a', name: 'a' })).toEqual({ '@type': 'CreativeWork', url: 'file:///a', name: 'a' });
    expect(contentItem({ type: 'resource', resource: { uri: 'test://r', text: 'hi', mimeType: 'text/plain' } })).toEqual({ '@type': 'DigitalDocument', url: 'test://r', text: 'hi', encodingFormat: 'text/plain' });
  });

  it('keeps raw content for MCP clients in a structured call', () => {
    const content = [{ type: 'text', text: 'a' }, { type: 'image', data: 'AA', mimeType: 'image/png' }];
    expect(toToolResult({ content, structuredContent: { x: 1 }, isError: true })).toEqual({ text: 'a', structured: { x: 1 }, content, isError: true });
  });

  it('always starts with start and ends in complete or one terminal event, whatever the upstream sent (property)', () => {
    const anyResult = fc.record(
      {
        content: fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text: fc.string() }), fc.dictionary(fc.string(), fc.jsonValue()))),
        structuredContent: fc.jsonValue(),
        isError: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(anyResult, (r) => {
        const out = events(r as never);
        expect(out[0]!.type).toBe('start');
        const last = out.at(-1)!;
        expect(['complete', 'error', 'promise', 'elicitation']).toContain(last.type);
        expect(out.slice(1, -1).every((e) => e.type === 'result')).toBe(true);
      }),
    );
  });
});
