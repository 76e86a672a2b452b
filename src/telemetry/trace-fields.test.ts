import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcpFacts, nlipTraceFields } from './trace-fields.ts';

const TP = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('trace fields in protocol messages', () => {
  it('reads MCP params._meta.traceparent/tracestate, the method, the tool name and the id', () => {
    expect(mcpFacts({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', _meta: { traceparent: TP, tracestate: 'a=b' } } })).toEqual({
      method: 'tools/call',
      target: 'ask',
      requestId: '7',
      fields: { traceparent: TP, tracestate: 'a=b' },
    });
    // A batch: the first message.
    expect(mcpFacts([{ method: 'ping', params: { _meta: { traceparent: TP } } }, { method: 'x' }])).toEqual({ method: 'ping', fields: { traceparent: TP } });
  });

  it('reads NLIP token submessages with subformat traceparent/tracestate (the first of each), and nothing else', () => {
    const msg = {
      format: 'text',
      subformat: 'english',
      content: 'q',
      submessages: [
        { format: 'token', subformat: 'conversation', content: 'c1' },
        { format: 'token', subformat: 'TraceParent', content: TP },
        { format: 'token', subformat: 'traceparent', content: 'second' },
        { format: 'text', subformat: 'tracestate', content: 'not a token' },
      ],
    };
    expect(nlipTraceFields(msg)).toEqual({ traceparent: TP });
  });

  it('never throws, and keeps only short strings, whatever a client sends (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (body) => {
        const facts = mcpFacts(body);
        const fields = { ...facts.fields, ...nlipTraceFields(body) };
        for (const v of Object.values(fields)) expect(typeof v === 'string' && v.length <= 512).toBe(true);
        expect(Object.keys(fields).every((k) => k === 'traceparent' || k === 'tracestate')).toBe(true);
        if (facts.method !== undefined) expect(facts.method.length).toBeLessThanOrEqual(64);
        if (facts.requestId !== undefined) expect(facts.requestId.length).toBeLessThanOrEqual(64);
      }),
    );
  });

  it('drops oversized values rather than carrying them into spans (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 129, maxLength: 2000 }), (long) => {
        expect(mcpFacts({ method: 'tools/call', params: { _meta: { traceparent: long } } }).fields).toEqual({});
        expect(nlipTraceFields({ format: 'token', subformat: 'traceparent', content: long })).toEqual({});
      }),
    );
  });
});
