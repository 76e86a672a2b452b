import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** The JSON Schema dialects a foreign schema may declare. */
export type Dialect = '2020' | '2019' | '07';

/**
 * Foreign schemas use "any JSON Schema features" (webtools "JSON Schema Requirements"): unknown
 * keywords (`example`, `x-…`) are tolerated, remote `$ref`s are never fetched (no `loadSchema`),
 * and `format` is not asserted (ajv ships no format validators without ajv-formats).
 */
const AJV_OPTIONS: Options = { strict: false, allErrors: false, validateFormats: false, logger: false };

/** A fresh ajv instance for `dialect` (loaded by json-schema.ts with the first schema it compiles). */
export function newAjv(dialect: Dialect): Ajv {
  if (dialect === '2019') return new Ajv2019(AJV_OPTIONS);
  if (dialect === '07') return new Ajv(AJV_OPTIONS);
  return new Ajv2020(AJV_OPTIONS);
}
