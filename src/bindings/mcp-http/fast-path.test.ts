import fc from 'fast-check';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { acceptFast, encodeResult, plainModernRequest } from './fast-path.ts';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const LEVEL = 'io.modelcontextprotocol/logLevel';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const INFO = 'io.modelcontextprotocol/clientInfo';

function req(method: string, params: Record<string, unknown>, headers: Record<string, string | undefined> = {}, body?: unknown): [Request, unknown] {
  const h: Record<string, string | undefined> = {
    'content-type': 'application/json',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    'mcp-name': typeof params.name === 'string' ? params.name : undefined,
    ...headers,
  };
  const message = body ?? { jsonrpc: '2.0', id: 1, method, params: { _meta: { [PV]: '2026-07-28', [CAPS]: {} }, ...params } };
  const clean = Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined));
  return [new Request('http://gw/mcp', { method: 'POST', headers: clean, body: JSON.stringify(message) }), message];
}

const accepted = (...a: Parameters<typeof req>) => acceptFast(...req(...a));

describe('the fast path decides what it answers (issue 25)', () => {
  it('accepts a plain tools/call, tools/list and server/discover of 2026-07-28', () => {
    expect(accepted('tools/call', { name: 'ask', arguments: { query: { text: 'x' } } })).toMatchObject({ id: 1, method: 'tools/call', params: { name: 'ask' } });
    expect(accepted('tools/list', {})).toMatchObject({ method: 'tools/list', params: {} });
    expect(accepted('server/discover', {})).toMatchObject({ method: 'server/discover', envelope: { [PV]: '2026-07-28' } });
  });

  it('declines other methods, batches, notifications and 2025 traffic', () => {
    expect(accepted('ping', {})).toBeUndefined();
    expect(accepted('resources/list', {})).toBeUndefined();
    expect(acceptFast(...req('tools/list', {}, {}, [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }]))).toBeUndefined();
    expect(acceptFast(...req('tools/list', {}, {}, { jsonrpc: '2.0', method: 'tools/list', params: { _meta: { [PV]: '2026-07-28', [CAPS]: {} } } }))).toBeUndefined();
    expect(acceptFast(...req('tools/list', {}, { 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }))).toBeUndefined();
  });

  it('declines what the SDK would refuse or answer otherwise: headers, media type, envelope', () => {
    expect(accepted('tools/list', {}, { 'mcp-protocol-version': undefined })).toBeUndefined();
    expect(accepted('tools/list', {}, { 'mcp-method': undefined })).toBeUndefined();
    expect(accepted('tools/list', {}, { 'mcp-method': 'tools/call' })).toBeUndefined();
    expect(accepted('tools/list', {}, { 'content-type': 'text/plain' })).toBeUndefined();
    expect(accepted('tools/call', { name: 'ask' }, { 'mcp-name': undefined })).toBeUndefined();
    expect(accepted('tools/call', { name: 'ask' }, { 'mcp-name': `=?base64?${btoa('ask')}?=` })).toBeUndefined();
    expect(acceptFast(...req('tools/list', {}, {}, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [PV]: '2026-07-28' } } }))).toBeUndefined();
  });

  it('declines extras that change the answer: progress tokens, cursors, tasks, rounds, log levels, elicitation, the tasks extension', () => {
    expect(accepted('tools/call', { name: 'ask', _meta: { [PV]: '2026-07-28', [CAPS]: {}, progressToken: 1 } })).toBeUndefined();
    expect(accepted('tools/list', { cursor: 'c' })).toBeUndefined();
    expect(accepted('tools/call', { name: 'ask', task: { ttl: 1 } })).toBeUndefined();
    expect(accepted('tools/call', { name: 'ask', requestState: 's' })).toBeUndefined();
    expect(accepted('tools/call', { name: 'ask', _meta: { [PV]: '2026-07-28', [CAPS]: {}, [LEVEL]: 'info' } })).toBeUndefined();
    expect(accepted('tools/call', { name: 'ask', _meta: { [PV]: '2026-07-28', [CAPS]: { elicitation: {} } } })).toBeUndefined();
    expect(accepted('tools/call', { name: 'ask', _meta: { [PV]: '2026-07-28', [CAPS]: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } })).toBeUndefined();
    expect(accepted('tools/call', { name: 'ask', arguments: 'text' })).toBeUndefined();
  });
});

describe('the plain 2026-07-28 request, recognised without the SDK classifier (issue 25)', () => {
  const plain = (params: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params, ...extra });
  const envelope = (more: Record<string, unknown> = {}) => ({ [PV]: '2026-07-28', [CAPS]: {}, ...more });

  it('recognises what the SDK client sends, and leaves the rest to the classifier', () => {
    const body = plain({ name: 'ask', arguments: { query: { text: 'x' } }, _meta: envelope({ [INFO]: { name: 'c', version: '1' } }) });
    expect(plainModernRequest(body, '2026-07-28', 'tools/call')).toBe(body);
    expect(plainModernRequest(plain({ name: 'ask', _meta: envelope({ [CAPS]: { roots: { listChanged: true }, sampling: {} } }) }), '2026-07-28', 'tools/call')).toBeDefined();
    // Each of these may still be served fast, after the classifier has said what it is.
    expect(plainModernRequest(body, '2026-07-28', 'tools/list')).toBeUndefined();
    expect(plainModernRequest(body, '2025-11-25', 'tools/call')).toBeUndefined();
    expect(plainModernRequest(plain({ name: 'ask', _meta: envelope({ [INFO]: { name: 'c', version: '1', title: 'C' } }) }), '2026-07-28', 'tools/call')).toBeUndefined();
    expect(plainModernRequest(plain({ name: 'ask', _meta: envelope({ [CAPS]: { elicitation: {} } }) }), '2026-07-28', 'tools/call')).toBeUndefined();
    expect(plainModernRequest(plain({ name: 'ask', _meta: envelope() }, { id: 1.5 }), '2026-07-28', 'tools/call')).toBeUndefined();
    expect(plainModernRequest(plain({ name: 'ask', _meta: envelope() }, { result: {} }), '2026-07-28', 'tools/call')).toBeUndefined();
  });

  it('recognises only what the SDK classifies as a 2026-07-28 request, the body itself (property, against classifyInboundRequest)', () => {
    const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 3 }), fc.constant([]), fc.constant({}));
    const info = fc.oneof(value, fc.record({ name: fc.oneof(fc.constant('c'), value), version: fc.oneof(fc.constant('1'), value), title: value }, { requiredKeys: [] }));
    const capability = fc.oneof(value, fc.record({ listChanged: value }, { requiredKeys: [] }), fc.dictionary(fc.constantFrom('listChanged', 'context', 'x'), value, { maxKeys: 2 }));
    const caps = fc.oneof(value, fc.dictionary(fc.constantFrom('roots', 'sampling', 'elicitation', 'experimental', 'extensions', 'tasks', 'x'), capability, { maxKeys: 3 }));
    const meta = fc.oneof(
      value,
      fc.record({ [PV]: fc.constantFrom('2026-07-28', '2025-11-25', 'x', 1), [CAPS]: caps, [INFO]: info, [LEVEL]: fc.constantFrom('info', 'x'), progressToken: value }, { requiredKeys: [] }),
      // Mostly plain: the accepted side of the property needs requests the recognizer takes.
      fc.record({ [PV]: fc.constant('2026-07-28'), [CAPS]: caps, [INFO]: info }, { requiredKeys: [PV, CAPS] }),
    );
    const params = fc.oneof(value, fc.record({ name: fc.oneof(fc.constant('ask'), value), arguments: value, _meta: meta, cursor: value }, { requiredKeys: ['_meta'] }));
    const method = fc.constantFrom('tools/call', 'tools/list', 'server/discover', 'initialize', 'ping');
    const body = fc.oneof(
      fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.double(), fc.constant(null), fc.constant(2 ** 60)), method, params, result: value, error: value, x: value }, { requiredKeys: ['method', 'params'] }),
      fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), method, params }),
    );
    // Mostly plain, with the headers of its method: the accepted side of the property needs requests the recognizer takes.
    const plainCaps = fc.oneof(fc.constant({}), fc.record({ roots: fc.oneof(fc.constant({}), fc.record({ listChanged: fc.boolean() })), sampling: fc.constant({}) }, { requiredKeys: [] }));
    const plainInfo = fc.record({ name: fc.string({ maxLength: 3 }), version: fc.string({ maxLength: 3 }) });
    const mostlyPlain = fc
      .record({
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
        method: fc.constantFrom('tools/call', 'tools/list', 'server/discover'),
        args: fc.oneof(fc.constant(undefined), fc.constant({ query: { text: 'x' } })),
        meta: fc.record({ [PV]: fc.constant('2026-07-28'), [CAPS]: fc.oneof({ arbitrary: plainCaps, weight: 4 }, { arbitrary: caps, weight: 1 }), [INFO]: fc.oneof({ arbitrary: plainInfo, weight: 4 }, { arbitrary: info, weight: 1 }) }, { requiredKeys: [PV, CAPS] }),
      })
      .map(({ id, method, args, meta: m }) => ({ body: { jsonrpc: '2.0', id, method, params: { name: 'ask', ...(args ? { arguments: args } : {}), _meta: m } }, methodHeader: method as string | undefined }));
    const anyRequest = fc.record({ body, methodHeader: fc.constantFrom(undefined, 'tools/call', 'tools/list', 'initialize') });
    let recognised = 0;
    fc.assert(
      fc.property(fc.oneof(mostlyPlain, anyRequest), fc.constantFrom(undefined, '2026-07-28', '2026-07-28', '2025-11-25'), ({ body: b, methodHeader }, version) => {
        const message = plainModernRequest(b as Record<string, unknown>, version, methodHeader);
        if (!message) return;
        recognised++;
        const outcome = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, mcpMethodHeader: methodHeader, body: b });
        expect(outcome).toMatchObject({ kind: 'modern', messageKind: 'request', classification: { revision: '2026-07-28' } });
        expect((outcome as { message: unknown }).message).toBe(b);
        expect(message).toBe(b);
      }),
      { numRuns: 3000 },
    );
    expect(recognised).toBeGreaterThan(100); // the property is about recognised requests: enough of them were made
  });
});

describe('the fast path encodes as the 2026-07-28 codec does', () => {
  it('stamps resultType and the server identity, and cache fields on cacheable results only', () => {
    expect(encodeResult('tools/list', { tools: [] })).toEqual({ tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { [SERVER_INFO]: { name: 'nlgate', version: '0.1.0' } } });
    expect(encodeResult('tools/call', { content: [], _meta: { a: 1 } })).toEqual({ content: [], resultType: 'complete', _meta: { a: 1, [SERVER_INFO]: { name: 'nlgate', version: '0.1.0' } } });
  });
});
