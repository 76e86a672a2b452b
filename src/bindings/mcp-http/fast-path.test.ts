import { describe, expect, it } from 'vitest';
import { acceptFast, encodeResult } from './fast-path.ts';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const LEVEL = 'io.modelcontextprotocol/logLevel';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

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

describe('the fast path encodes as the 2026-07-28 codec does', () => {
  it('stamps resultType and the server identity, and cache fields on cacheable results only', () => {
    expect(encodeResult('tools/list', { tools: [] })).toEqual({ tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { [SERVER_INFO]: { name: 'nlgate', version: '0.1.0' } } });
    expect(encodeResult('tools/call', { content: [], _meta: { a: 1 } })).toEqual({ content: [], resultType: 'complete', _meta: { a: 1, [SERVER_INFO]: { name: 'nlgate', version: '0.1.0' } } });
  });
});
