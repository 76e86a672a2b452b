/**
 * OpenAPI Schema Objects as plain JSON Schema, as clients are shown them and ajv checks them: a
 * copy that is finite (a recursive schema's cycle becomes `{}`, "any value"), bounded in size (a
 * description whose `$ref`s fan out cannot make the gateway build an exponential tree), and, for
 * OpenAPI 3.0, in JSON Schema's own terms (`nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`).
 */
import type { JsonSchema } from '../../src/core/agent.ts';

/** Most nodes one operation's schemas may have once copied. */
export const MAX_SCHEMA_NODES = 20_000;

/** The operation's schema is too large to publish (MAX_SCHEMA_NODES). */
export class SchemaTooLargeError extends Error {
  override readonly name = 'SchemaTooLargeError';
}

/** Keys whose values are data, not schemas: copied, never converted. */
const DATA_KEYS = new Set(['enum', 'const', 'default', 'example', 'examples']);
/** OpenAPI-only annotations that mean nothing to a JSON Schema client. */
const DROPPED_KEYS = new Set(['xml', 'discriminator', 'externalDocs']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Counts copied nodes against one budget shared by an operation's schemas. */
export class SchemaBudget {
  private used = 0;
  constructor(private readonly max = MAX_SCHEMA_NODES) {}
  /** Takes one node; throws SchemaTooLargeError past the budget. */
  take(): void {
    if (++this.used > this.max) throw new SchemaTooLargeError(`more than ${this.max} schema nodes`);
  }
}

function copyData(value: unknown, budget: SchemaBudget, stack: Set<object>): unknown {
  budget.take();
  if (value === null || typeof value !== 'object') return value;
  if (stack.has(value)) return null;
  stack.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => copyData(v, budget, stack));
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) out[k] = copyData(v, budget, stack);
    return out;
  } finally {
    stack.delete(value);
  }
}

/** OpenAPI 3.0's spellings in JSON Schema terms, on one (already copied) schema object. */
function from30(s: Obj): Obj {
  if (s.nullable === true) {
    if (typeof s.type === 'string') s.type = [s.type, 'null'];
    else if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
  }
  if (typeof s.nullable === 'boolean') delete s.nullable;
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof s[flag] !== 'boolean') continue;
    if (s[flag] === true && typeof s[bound] === 'number') {
      s[flag] = s[bound];
      delete s[bound];
    } else delete s[flag];
  }
  return s;
}

function copySchema(value: unknown, openapi30: boolean, budget: SchemaBudget, stack: Set<object>): unknown {
  budget.take();
  if (value === null || typeof value !== 'object') return value;
  // A schema that contains itself (a tree of categories): the inner occurrence accepts any value.
  if (stack.has(value)) return {};
  stack.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => copySchema(v, openapi30, budget, stack));
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) {
      if (DROPPED_KEYS.has(k) || k.startsWith('x-')) continue;
      if (k === '$ref') continue; // left unresolved only by a cycle the resolver gave up on
      out[k] = DATA_KEYS.has(k) ? copyData(v, budget, new Set()) : copySchema(v, openapi30, budget, stack);
    }
    return openapi30 ? from30(out) : out;
  } finally {
    stack.delete(value);
  }
}

/**
 * One Schema Object as a finite JSON Schema; `properties`-like maps are walked as schemas too,
 * which is harmless (a property named `nullable` holds a schema, never `true`).
 */
export function toJsonSchema(schema: unknown, opts: { openapi30: boolean; budget: SchemaBudget }): JsonSchema {
  const out = copySchema(schema, opts.openapi30, opts.budget, new Set());
  if (out === true || out === undefined) return {};
  if (out === false) return { not: {} };
  return isObj(out) ? out : {};
}
