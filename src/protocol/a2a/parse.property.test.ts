import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JSONRPC_INVALID_PARAMS, JSONRPC_INVALID_REQUEST, JSONRPC_PARSE_ERROR, parseJsonRpc, parseSendBody } from './parse.ts';

/** Parts with random shapes: the four kinds, mixes of them, and anything at all. */
const part = fc.oneof(
  fc.record({ text: fc.string() }),
  fc.record({ data: fc.jsonValue() }),
  fc.record({ url: fc.webUrl(), mediaType: fc.string() }),
  fc.record({ text: fc.string(), data: fc.jsonValue() }),
  fc.anything(),
);
const message = fc.record(
  {
    messageId: fc.oneof(fc.uuid(), fc.string(), fc.anything()),
    role: fc.oneof(fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'user', 'agent', 1, 2, 0, 'x'), fc.anything()),
    parts: fc.oneof(fc.array(part, { maxLength: 5 }), fc.anything()),
    contextId: fc.oneof(fc.string(), fc.anything()),
    taskId: fc.oneof(fc.string(), fc.anything()),
  },
  { requiredKeys: [] },
);
const params = fc.oneof(fc.record({ message, configuration: fc.anything() }, { requiredKeys: [] }), fc.record({ id: fc.anything(), historyLength: fc.anything() }, { requiredKeys: [] }), fc.anything());
const envelope = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.anything()),
    id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.anything()),
    method: fc.oneof(fc.constantFrom('SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask', 'SubscribeToTask', 'ListTasks', 'Nope'), fc.anything()),
    params,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(envelope.map((e) => JSON.stringify(e)), fc.json(), fc.string());

describe('the A2A JSON-RPC parser (A2A 1.0 §9) on any input', () => {
  it('never throws; answers a §9.5 error code or a request whose params the schema accepted', () => {
    fc.assert(
      fc.property(body, (text) => {
        const r = parseJsonRpc(text);
        if (r.ok) {
          expect(r.request.jsonrpc).toBe('2.0');
          expect(typeof r.request.method).toBe('string');
          if (r.request.method === 'SendMessage') {
            const p = r.request.params as { message: { parts: unknown[]; role: string } };
            expect(p.message.parts.length).toBeGreaterThan(0);
            expect(p.message.role).toBe('ROLE_USER');
          }
        } else {
          expect([JSONRPC_PARSE_ERROR, JSONRPC_INVALID_REQUEST, JSONRPC_INVALID_PARAMS]).toContain(r.error.code);
          expect(r.error.message.length).toBeGreaterThan(0);
          expect(r.error.message).not.toMatch(/at .+\.ts:\d+/);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('bad JSON is -32700 with a null id; a non-2.0 envelope is -32600 keeping a valid id', () => {
    fc.assert(
      fc.property(fc.string().filter((s) => { try { JSON.parse(s); return false; } catch { return true; } }), (text) => {
        const r = parseJsonRpc(text);
        expect(r).toMatchObject({ ok: false, id: null, error: { code: JSONRPC_PARSE_ERROR } });
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer()), fc.string().filter((v) => v !== '2.0'), (id, version) => {
        const r = parseJsonRpc(JSON.stringify({ jsonrpc: version, id, method: 'GetTask', params: { id: 'x' } }));
        expect(r).toMatchObject({ ok: false, id, error: { code: JSONRPC_INVALID_REQUEST } });
      }),
    );
  });

  it('a well-formed SendMessage is accepted whatever its text, and v0.3 roles are normalised', () => {
    fc.assert(
      fc.property(fc.string(), fc.uuid(), fc.constantFrom('user', 'ROLE_USER', 1), (t, messageId, role) => {
        const r = parseJsonRpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId, role, parts: [{ text: t }] } } }));
        expect(r.ok).toBe(true);
        if (r.ok) expect((r.request.params as { message: { role: string } }).message.role).toBe('ROLE_USER');
      }),
    );
  });

  it('the HTTP+JSON send body parser never throws and says what is wrong', () => {
    fc.assert(
      fc.property(fc.oneof(fc.record({ message }, { requiredKeys: [] }), fc.anything()), (b) => {
        const r = parseSendBody(b);
        if (!r.ok) expect(r.message).toMatch(/^Invalid request: /);
      }),
      { numRuns: 300 },
    );
  });
});
