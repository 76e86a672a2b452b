import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/base/errors.ts';
import type { OpenapiDocument } from './spec.ts';
import { operationsOf, type Operation } from './operations.ts';
import { buildRequest } from './request.ts';

const doc = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' }, tok: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/v/{a}/items/{b}': {
      parameters: [{ name: 'a', in: 'path', required: true, schema: { type: 'string' } }],
      post: {
        operationId: 'mix',
        security: [{ key: [], tok: [] }, { tok: [] }],
        parameters: [
          { name: 'b', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          { name: 'list', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'csv', in: 'query', explode: false, schema: { type: 'array', items: { type: 'string' } } },
          { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object' } },
          { name: 'q', in: 'header', schema: { type: 'string' } },
          { name: 'session', in: 'cookie', schema: { type: 'string' } },
        ],
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
} as unknown as OpenapiDocument;

const op: Operation = operationsOf(doc).operations[0]!;
const base = new URL('https://api.example/base/');
const schemes = (doc.components as { securitySchemes: Record<string, unknown> }).securitySchemes;
const noAuth = { credentials: {}, schemes };

/** Path values: any text but the two dot-segments, which are refused. */
const segment = fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }).filter((s) => s !== '.' && s !== '..');

describe('argument mapping (property)', () => {
  it('path values stay one segment each under the base path, and decode back to themselves', () => {
    fc.assert(
      fc.property(segment, segment, (a, b) => {
        const call = buildRequest(op, { a, b }, base, noAuth);
        expect(call.url.origin).toBe(base.origin);
        const parts = call.url.pathname.split('/');
        expect(parts.slice(0, 3)).toEqual(['', 'base', 'v']);
        expect(parts).toHaveLength(6);
        expect(decodeURIComponent(parts[3]!)).toBe(a);
        expect(decodeURIComponent(parts[5]!)).toBe(b);
      }),
    );
  });

  it('query values round-trip through URLSearchParams: exploded lists repeat, unexploded ones join with commas', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { maxLength: 5 }), fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '&', '=') }), { minLength: 1, maxLength: 4 }), (q, list, csv) => {
        const call = buildRequest(op, { a: 'x', b: 'y', q, list, csv }, base, noAuth);
        const params = call.url.searchParams;
        expect(params.get('q')).toBe(q);
        expect(params.getAll('list')).toEqual(list);
        expect(params.get('csv')).toBe(csv.join(','));
      }),
    );
  });

  it('a parameter name used in two locations gets its own key; deepObject and cookies serialize', () => {
    expect(op.params.map((p) => p.key)).toEqual(['a', 'b', 'q', 'list', 'csv', 'filter', 'header.q', 'session']);
    const call = buildRequest(op, { a: 'x', b: 'y', q: 'in query', 'header.q': 'in header', filter: { color: 'red', size: 2 }, session: 's 1', body: { n: 1 } }, base, noAuth);
    expect(call.url.searchParams.get('q')).toBe('in query');
    expect(call.url.searchParams.get('filter[color]')).toBe('red');
    expect(call.url.searchParams.get('filter[size]')).toBe('2');
    expect(call.headers).toMatchObject({ q: 'in header', cookie: 'session=s%201', 'content-type': 'application/json' });
    expect(JSON.parse(call.body!)).toEqual({ n: 1 });
  });

  it('credentials: the first security alternative whose schemes are all configured is applied', () => {
    const both = buildRequest(op, { a: 'x', b: 'y' }, base, { credentials: { key: 'k1', tok: 't1' }, schemes });
    expect(both.headers).toMatchObject({ 'x-key': 'k1', authorization: 'Bearer t1' });
    const tokenOnly = buildRequest(op, { a: 'x', b: 'y' }, base, { credentials: { tok: 't1' }, schemes });
    expect(tokenOnly.headers['x-key']).toBeUndefined();
    expect(tokenOnly.headers.authorization).toBe('Bearer t1');
    expect(buildRequest(op, { a: 'x', b: 'y' }, base, { credentials: { key: 'k1' }, schemes }).headers.authorization).toBeUndefined();
  });

  it('never throws anything but a GatewayError, whatever the arguments', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'q', 'list', 'csv', 'filter', 'header.q', 'session', 'body'), fc.jsonValue({ maxDepth: 2 })), (args) => {
        try {
          const call = buildRequest(op, args, base, noAuth);
          expect(call.url.origin).toBe(base.origin);
          expect(call.url.pathname.startsWith('/base/v/')).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(GatewayError);
        }
      }),
    );
  });
});
