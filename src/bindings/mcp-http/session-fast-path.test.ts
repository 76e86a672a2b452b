import fc from 'fast-check';
import { classifyInboundRequest, isJSONRPCRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { acceptSessionRequest } from './session-fast-path.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'mcp_x', 'mcp-protocol-version': '2025-11-25' };

function req(body: unknown, headers: Record<string, string | undefined> = {}): [Request, unknown] {
  const h = Object.fromEntries(Object.entries({ ...HEADERS, ...headers }).filter((e): e is [string, string] => e[1] !== undefined));
  return [new Request('http://gw/mcp', { method: 'POST', headers: h, body: JSON.stringify(body) }), body];
}
const accepted = (...a: Parameters<typeof req>) => acceptSessionRequest(...req(...a));
const call = (params: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params, ...extra });

describe('the session fast path decides what it answers (issue 25)', () => {
  it('accepts a plain tools/call, tools/list and ping of a session, as the SDK client sends them', () => {
    expect(accepted(call({ name: 'ask', arguments: { query: { text: 'x' } } }))).toEqual({ id: 1, method: 'tools/call', name: 'ask', args: { query: { text: 'x' } } });
    expect(accepted(call({ name: 'await' }))).toEqual({ id: 1, method: 'tools/call', name: 'await' });
    expect(accepted({ method: 'tools/list', jsonrpc: '2.0', id: 'a' })).toEqual({ id: 'a', method: 'tools/list' });
    expect(accepted({ method: 'ping', params: {}, jsonrpc: '2.0', id: 0 })).toEqual({ id: 0, method: 'ping' });
    expect(accepted(call({ name: 'ask' }), { 'mcp-protocol-version': undefined })).toBeDefined();
    expect(accepted(call({ name: 'ask' }), { 'mcp-protocol-version': '2025-03-26' })).toBeDefined();
  });

  it('declines what has no session, another media type or Accept, or an MCP-Protocol-Version the session transport refuses', () => {
    expect(accepted(call({ name: 'ask' }), { 'mcp-session-id': undefined })).toBeUndefined();
    expect(accepted(call({ name: 'ask' }), { 'content-type': 'text/plain' })).toBeUndefined();
    expect(accepted(call({ name: 'ask' }), { accept: 'application/json' })).toBeUndefined();
    for (const v of ['2026-07-28', '2099-01-01', 'bogus', '1999-01-01']) expect(accepted(call({ name: 'ask' }), { 'mcp-protocol-version': v })).toBeUndefined();
  });

  it('declines everything but a single plain request: batches, notifications, initialize, other methods, extras', () => {
    expect(accepted([call({ name: 'ask' })])).toBeUndefined();
    expect(accepted({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    expect(accepted({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })).toBeUndefined();
    expect(accepted({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } })).toBeUndefined();
    expect(accepted(call({ name: 'ask', _meta: { progressToken: 1 } }))).toBeUndefined();
    expect(accepted(call({ name: 'ask', _meta: {} }))).toBeUndefined();
    expect(accepted(call({ name: 'ask', task: { ttl: 1 } }))).toBeUndefined();
    expect(accepted({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'c' } })).toBeUndefined();
    expect(accepted(call({ name: 'ask' }, { extra: 1 }))).toBeUndefined();
    expect(accepted(call({ name: 'ask', arguments: [1] }))).toBeUndefined();
    expect(accepted(call({ name: 'ask', arguments: JSON.parse('{"__proto__":{"query":{"text":"x"}}}') }))).toBeUndefined();
    expect(accepted(call({ name: 'ask' }, { id: 2 ** 60 }))).toBeUndefined();
    expect(accepted(call({ name: 'ask' }, { id: 1.5 }))).toBeUndefined();
    expect(accepted(call({ name: 'ask' }, { jsonrpc: '1.0' }))).toBeUndefined();
  });

  it('accepts only what the SDK classifies as a 2025 request (property, against classifyInboundRequest)', () => {
    const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.double(), fc.string({ maxLength: 4 }), fc.constant([]), fc.constant({}), fc.constant({ query: { text: 'x' } }));
    const params = fc.oneof(
      value,
      fc.record({ name: fc.oneof(fc.constant('ask'), value), arguments: value }, { requiredKeys: [] }),
      fc.dictionary(fc.constantFrom('name', 'arguments', '_meta', 'task', 'cursor', 'x'), value),
      fc.constant({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
    );
    const body = fc.oneof(
      fc.dictionary(fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error', 'x'), fc.oneof(value, params, fc.constantFrom('2.0', 'tools/call', 'tools/list', 'ping', 'initialize'))),
      fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.double(), fc.constant(null)), method: fc.constantFrom('tools/call', 'tools/list', 'ping', 'initialize', 'x'), params }, { requiredKeys: ['method'] }),
      fc.array(fc.constant({ jsonrpc: '2.0', id: 1, method: 'ping' }), { maxLength: 2 }),
      // Mostly plain: the accepted side of the property needs requests the fast path takes.
      fc.record({
        jsonrpc: fc.constant('2.0'),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
        method: fc.constantFrom('tools/call', 'tools/list', 'ping'),
        params: fc.oneof(fc.constant(undefined), fc.constant({}), fc.record({ name: fc.constantFrom('ask', 'await', 'x'), arguments: fc.oneof(fc.constant({}), fc.constant({ query: { text: 'x' } })) }, { requiredKeys: ['name'] })),
      }),
    );
    const version = fc.constantFrom(undefined, '2025-11-25', '2025-06-18', '2024-11-05', '2026-07-28', 'x');
    let accepts = 0;
    fc.assert(
      fc.property(body, version, (b, v) => {
        const [request] = req(b, { 'mcp-protocol-version': v });
        const plain = acceptSessionRequest(request, b);
        if (!plain) return;
        accepts++;
        const outcome = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: v, body: b });
        expect(outcome.kind).toBe('legacy');
        expect(isJSONRPCRequest(b)).toBe(true);
        expect(['tools/call', 'tools/list', 'ping']).toContain(plain.method);
      }),
      { numRuns: 2000 },
    );
    expect(accepts).toBeGreaterThan(50); // the property is about accepted requests: enough of them were made
  });
});
