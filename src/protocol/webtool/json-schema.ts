import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { loadOnce } from '../../base/load-once.ts';
import type { Dialect } from './ajv.ts';
import type { JsonSchemaObject } from './metadata.ts';

/** Validates one value; returns null when it matches, else a one-line reason naming the path. */
export type SchemaCheck = (value: unknown) => string | null;

/** Compiles one schema to its check; throws InvalidSchemaError. */
export type SchemaCompiler = (schema: JsonSchemaObject, label: string) => SchemaCheck;

/** A schema that ajv cannot compile (the webtool published a broken schema). */
export class InvalidSchemaError extends Error {
  override readonly name = 'InvalidSchemaError';
}

// ajv (with fast-uri, ≈ 150 KiB) loads with the first schema compiled: only webtool and OpenAPI
// agents and tool calls through the webtool binding compile any, so most gateways never load it (issue 23).
const loadAjv = loadOnce(() => import('./ajv.ts'));

function dialectOf(schema: JsonSchemaObject): Dialect {
  const uri = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (uri.includes('2019-09')) return '2019';
  if (/draft-0[4-7]/.test(uri)) return '07';
  return '2020'; // z.toJSONSchema emits 2020-12; an undeclared dialect is read as the current one
}

function describeError(e: ErrorObject, label: string): string {
  const path = e.instancePath
    .split('/')
    .filter((p) => p.length > 0)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const where = [label, ...path].join('.');
  const extra = e.keyword === 'additionalProperties' ? ` ("${String(e.params.additionalProperty)}")` : '';
  return `${where}: ${e.message ?? 'is invalid'}${extra}`;
}

/**
 * Compiles JSON Schemas with ajv, choosing the dialect from `$schema` (2020-12 when absent, with a
 * draft-07 fallback for older schemas). One compiler per metadata snapshot: schemas of different
 * versions may reuse an `$id`, which one ajv instance would refuse. Resolves once ajv is loaded.
 */
export async function createSchemaCompiler(): Promise<SchemaCompiler> {
  const { newAjv } = await loadAjv();
  const instances = new Map<Dialect, Ajv>();
  const instance = (d: Dialect): Ajv => {
    let ajv = instances.get(d);
    if (!ajv) instances.set(d, (ajv = newAjv(d)));
    return ajv;
  };
  const tryCompile = (schema: JsonSchemaObject, dialect: Dialect): ValidateFunction => {
    // The dialect is chosen here; dropping `$schema` spares ajv a meta-schema lookup it may not have.
    const { $schema: _ignored, ...body } = schema;
    try {
      return instance(dialect).compile(body);
    } catch (err) {
      if (!String(err).includes('already exists')) throw err;
      return newAjv(dialect).compile(body); // a reused `$id`: compile in a fresh instance
    }
  };
  return (schema, label) => {
    let validate: ValidateFunction;
    const dialect = dialectOf(schema);
    try {
      validate = tryCompile(schema, dialect);
    } catch (err) {
      if (dialect !== '2020' || schema.$schema !== undefined) throw new InvalidSchemaError(String(err));
      try {
        validate = tryCompile(schema, '07');
      } catch {
        throw new InvalidSchemaError(String(err));
      }
    }
    return (value) => {
      if (validate(value)) return null;
      const first = validate.errors?.[0];
      return first ? describeError(first, label) : `${label}: is invalid`;
    };
  };
}

/** A bounded cache of compiled checks keyed by the schema's JSON (for schemas that come and go). */
export function createCachedValidator(max = 256): (schema: JsonSchemaObject, label: string, value: unknown) => Promise<string | null> {
  let compile: SchemaCompiler | undefined;
  const cache = new Map<string, SchemaCheck>();
  return async (schema, label, value) => {
    const key = `${label}\u0000${JSON.stringify(schema)}`;
    let check = cache.get(key);
    if (!check) {
      if (cache.size >= max || compile === undefined) {
        cache.clear(); // simplest bound; a fresh compiler also drops ajv's own schema cache
        compile = await createSchemaCompiler();
      }
      check = compile(schema, label);
      cache.set(key, check);
    }
    return check(value);
  };
}
