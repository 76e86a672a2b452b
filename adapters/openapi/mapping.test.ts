import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResultItemSchema } from '../../src/protocol/nlweb/index.ts';
import { OpenapiConfigSchema } from './config.ts';
import { replyItems, MAX_ITEMS } from './items.ts';
import { operationsOf } from './operations.ts';
import { checkResultsPath, readResultsPath } from './results-path.ts';
import { SchemaBudget, SchemaTooLargeError, toJsonSchema } from './schema.ts';
import type { OpenapiDocument } from './spec.ts';

describe('ask.results path (a singular JSONPath subset)', () => {
  it('reads members and indexes; refuses what it does not read', () => {
    const reply = { data: { hits: [{ a: 1 }, { a: 2 }] }, 'odd key': [3] };
    expect(readResultsPath(reply, '$')).toBe(reply);
    expect(readResultsPath(reply, '$.data.hits[1].a')).toBe(2);
    expect(readResultsPath(reply, "$['odd key'][0]")).toBe(3);
    expect(readResultsPath(reply, '$.data.missing.deeper')).toBeUndefined();
    expect(readResultsPath({}, '$.constructor')).toBeUndefined();
    expect(checkResultsPath('$..hits')).toMatch(/unsupported/);
    expect(checkResultsPath('$.items[*]')).toMatch(/unsupported/);
    expect(checkResultsPath('items')).toMatch(/must start with \$/);
  });

  it('property: reading never throws, whatever the path and the reply', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue({ maxDepth: 3 }), (path, reply) => {
        readResultsPath(reply, path);
        checkResultsPath(path);
      }),
    );
  });
});

describe('reply → result items', () => {
  it('@type objects pass; plain objects get name/url/description from the usual fields; bare values are PropertyValues', () => {
    expect(replyItems({ items: [{ '@type': 'Product', name: 'Kettle', score: 'high' }] }, 'op', '$.items')).toEqual([{ '@type': 'Product', name: 'Kettle' }]);
    expect(replyItems([{ id: 7, link: 'https://x.example/7', summary: 's' }], 'op')).toEqual([{ '@type': 'Thing', id: 7, name: '7', url: 'https://x.example/7', link: 'https://x.example/7', summary: 's', description: 's' }]);
    expect(replyItems('plain text', 'op')).toEqual([{ '@type': 'PropertyValue', name: 'op', value: 'plain text' }]);
    expect(replyItems({ nothing: [] }, 'op', '$.items')).toEqual([]);
  });

  it('property: every item is a valid result item, at most MAX_ITEMS', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 120 }), (list) => {
        const items = replyItems({ items: list }, 'op', '$.items');
        expect(items.length).toBeLessThanOrEqual(MAX_ITEMS);
        for (const i of items) expect(ResultItemSchema.safeParse(i).success).toBe(true);
      }),
    );
  });
});

describe('OpenAPI schemas as JSON Schema', () => {
  it('3.0 nullable and boolean exclusive bounds become JSON Schema; data keywords are left alone', () => {
    const out = toJsonSchema(
      { type: 'object', properties: { n: { type: 'integer', nullable: true, maximum: 5, exclusiveMaximum: true }, nullable: { type: 'string', enum: ['nullable'], example: { nullable: true } } }, xml: { name: 'x' } },
      { openapi30: true, budget: new SchemaBudget() },
    );
    expect(out).toEqual({ type: 'object', properties: { n: { type: ['integer', 'null'], exclusiveMaximum: 5 }, nullable: { type: 'string', enum: ['nullable'], example: { nullable: true } } } });
  });

  it('a cycle becomes {}; a fan-out past the budget is refused', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node.properties as Record<string, unknown>).child = node;
    expect(toJsonSchema(node, { openapi30: false, budget: new SchemaBudget() })).toEqual({ type: 'object', properties: { child: {} } });
    // 2^20 leaves through shared (not cyclic) references: the copy stops at the budget.
    let wide: unknown = { type: 'string' };
    for (let i = 0; i < 20; i++) wide = { allOf: [wide, wide] };
    expect(() => toJsonSchema(wide, { openapi30: false, budget: new SchemaBudget() })).toThrow(SchemaTooLargeError);
  });

  it('an operation whose schemas are too large is skipped, named in the log list, the others kept', () => {
    let wide: unknown = { type: 'string' };
    for (let i = 0; i < 20; i++) wide = { allOf: [wide, wide] };
    const doc = {
      openapi: '3.1.0',
      paths: {
        '/big': { post: { operationId: 'big', requestBody: { content: { 'application/json': { schema: wide } } }, responses: {} } },
        '/upload': { post: { operationId: 'upload', requestBody: { content: { 'application/octet-stream': { schema: { type: 'string' } } } }, responses: {} } },
        '/small/{id}': { get: { responses: {} } },
      },
    } as unknown as OpenapiDocument;
    const { operations, skipped } = operationsOf(doc);
    expect(operations.map((o) => o.tool.name)).toEqual(['get_small_id']);
    expect(skipped.map((s) => s.operation)).toEqual(['big', 'upload']);
  });
});

describe('operations of hostile descriptions (property)', () => {
  it('any `paths` value gives tools with object input schemas, or skips, never a throw', () => {
    const schema = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ type: fc.constantFrom('object', 'string', 'array'), nullable: fc.boolean(), properties: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })) }));
    const operation = fc.record(
      {
        operationId: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
        parameters: fc.oneof(fc.array(fc.record({ name: fc.oneof(fc.string(), fc.integer()), in: fc.constantFrom('path', 'query', 'header', 'cookie', 'body', 7), required: fc.boolean(), schema })), fc.jsonValue({ maxDepth: 2 })),
        requestBody: fc.oneof(fc.record({ content: fc.dictionary(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'), fc.record({ schema })) }), fc.jsonValue({ maxDepth: 2 })),
        responses: fc.dictionary(fc.constantFrom('200', '201', '2XX', '404', 'default'), fc.jsonValue({ maxDepth: 3 })),
        security: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    );
    const paths = fc.dictionary(fc.oneof(fc.constant('/a/{id}'), fc.string()), fc.oneof(fc.dictionary(fc.constantFrom('get', 'post', 'put', 'delete', 'parameters', 'x'), operation), fc.jsonValue({ maxDepth: 2 })));
    fc.assert(
      fc.property(paths, fc.constantFrom('3.0.3', '3.1.0'), (p, version) => {
        const { operations } = operationsOf({ openapi: version, paths: p } as OpenapiDocument);
        const names = new Set<string>();
        for (const o of operations) {
          expect(o.tool.inputSchema.type).toBe('object');
          expect(o.tool.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
          expect(names.has(o.tool.name)).toBe(false);
          names.add(o.tool.name);
          expect(() => JSON.stringify(o.tool)).not.toThrow();
        }
      }),
    );
  });
});

describe('header parameters', () => {
  it('a parameter naming a framing, routing or credential header is not offered as an input', () => {
    const headers = ['Host', 'Content-Length', 'Transfer-Encoding', 'Authorization', 'Cookie', 'X-Trace'].map((name) => ({ name, in: 'header', schema: { type: 'string' } }));
    const { operations } = operationsOf({ openapi: '3.1.0', paths: { '/a': { get: { operationId: 'a', parameters: headers, responses: {} } } } } as unknown as OpenapiDocument);
    expect(Object.keys(operations[0]!.tool.inputSchema.properties as object)).toEqual(['X-Trace']);
  });
});

describe('openapi config', () => {
  it('takes a spec and optional settings; refuses unknown fields, bad URLs and unreadable result paths', () => {
    expect(OpenapiConfigSchema.safeParse({ spec: './petstore.yaml', baseUrl: 'http://127.0.0.1:4010', operations: ['a'], ask: { operation: 'a', query: 'q', results: '$.items' } }).success).toBe(true);
    expect(OpenapiConfigSchema.safeParse({ spec: 'x.yaml', extra: 1 }).success).toBe(false);
    expect(OpenapiConfigSchema.safeParse({ spec: 'x.yaml', baseUrl: 'file:///etc' }).success).toBe(false);
    expect(OpenapiConfigSchema.safeParse({ spec: 'x.yaml', ask: { operation: 'a', query: 'q', results: '$..x' } }).success).toBe(false);
    expect(OpenapiConfigSchema.safeParse({ spec: 'x.yaml', operations: ['b'], ask: { operation: 'a', query: 'q' } }).success).toBe(false);
  });
});
