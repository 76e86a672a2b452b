import { beforeAll, describe, expect, it } from 'vitest';
import { createCachedValidator, createSchemaCompiler, InvalidSchemaError, type SchemaCompiler } from './json-schema.ts';

describe('JSON Schema validation of foreign schemas (ajv)', () => {
  let compile: SchemaCompiler;
  beforeAll(async () => {
    compile = await createSchemaCompiler();
  });

  it('validates 2020-12 (declared or not) and names the failing path', () => {
    const check = compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] }, 'request');
    expect(check({ amount: 2 })).toBeNull();
    expect(check({ amount: 'two' })).toBe('request.amount: must be number');
    expect(check({})).toBe("request: must have required property 'amount'");
    const closed = compile({ type: 'object', additionalProperties: false }, 'config');
    expect(closed({ apiKey: 'x' })).toBe('config: must NOT have additional properties ("apiKey")');
  });

  it('reads draft-07 (tuple items) and 2019-09 schemas, tolerating unknown keywords', () => {
    const tuple = compile({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }], example: ['a'] }, 'data');
    expect(tuple(['a'])).toBeNull();
    expect(tuple([1])).toBe('data.0: must be string');
    const undeclaredTuple = compile({ type: 'array', items: [{ type: 'number' }] }, 'data');
    expect(undeclaredTuple([1])).toBeNull();
    const s2019 = compile({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'string', 'x-note': 1 }, 'data');
    expect(s2019(3)).toBe('data: must be string');
  });

  it('throws InvalidSchemaError for a schema ajv cannot compile', () => {
    expect(() => compile({ type: 'strng' }, 'data')).toThrow(InvalidSchemaError);
  });

  it('allows the same $id in schemas compiled by one compiler (different versions of a webtool)', () => {
    expect(compile({ $id: 'https://x.example/a', type: 'string' }, 'a')('s')).toBeNull();
    expect(compile({ $id: 'https://x.example/a', type: 'number' }, 'a')('s')).toBe('a: must be number');
  });

  it('caches compiled schemas and stays bounded', async () => {
    const validate = createCachedValidator(2);
    for (let i = 0; i < 5; i++) expect(await validate({ type: 'integer', maximum: i }, 'n', i + 1)).toBe(`n: must be <= ${i}`);
    expect(await validate({ type: 'integer' }, 'n', 1)).toBeNull();
  });
});
