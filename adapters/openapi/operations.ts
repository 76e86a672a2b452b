/**
 * The operations of a resolved OpenAPI description as tools: each operation's parameters and JSON
 * request body become one input object (`{ <parameter>: ..., body: ... }`), its 2xx JSON response the
 * output, and its method the MCP hints (GET/HEAD read-only, PUT/DELETE idempotent).
 */
import type { JsonSchema, ToolDescription } from '../../src/core/agent.ts';
import type { OpenapiDocument } from './spec.ts';
import { SchemaBudget, toJsonSchema } from './schema.ts';

/** The Path Item fields that are operations (OpenAPI 3.0/3.1). */
export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
export type ParamLocation = 'path' | 'query' | 'header' | 'cookie';

/** One parameter, under the input property `key` (its name, unless two locations share the name). */
export interface OperationParam {
  name: string;
  in: ParamLocation;
  key: string;
  required: boolean;
  style?: string;
  explode?: boolean;
}

/** A security requirement alternative: scheme name → scopes (all of them at once). */
export type SecurityRequirement = Record<string, unknown>;

/** One callable operation. */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  params: OperationParam[];
  body?: { key: string; required: boolean; mediaType: 'json' | 'form' };
  /** The operation's `security`, else the document's (undefined: none declared). */
  security?: SecurityRequirement[];
  tool: ToolDescription;
}

/** What was left out, for the log. */
export interface Skipped {
  operation: string;
  reason: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Headers a parameter may not name: those OpenAPI ignores ("Parameter Object"), and those that would
 * let a caller's argument change how or where the request goes (framing, host, connection, cookies).
 */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization', 'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'cookie', 'proxy-authorization']);
/** MCP tool names: letters, digits, `_`, `-`, `.`, at most 64 characters here. */
const TOOL_NAME = /[^A-Za-z0-9_.-]/g;

/** The tool name for an operationId, or for an operation without one (`get_pets_petId`). */
export function toolNameOf(operationId: string | undefined, method: string, path: string): string {
  const raw = operationId ?? `${method}_${path.replace(/[{}]/g, '')}`.replace(TOOL_NAME, '_').replace(/_+/g, '_');
  return raw.replace(TOOL_NAME, '_').replace(/^_+|_+$/g, '').slice(0, 64) || method;
}

function isJsonType(mediaType: string): boolean {
  const t = mediaType.split(';')[0]!.trim().toLowerCase();
  return t === 'application/json' || t.endsWith('+json') || t === '*/*';
}

/** The JSON schema in a `content` map (a JSON media type first), if any. */
function jsonContent(content: unknown): { schema: unknown; type: string } | undefined {
  if (!isObj(content)) return undefined;
  for (const [type, media] of Object.entries(content)) if (isJsonType(type) && isObj(media)) return { schema: media.schema ?? {}, type };
  return undefined;
}

/** The first 2xx response with a JSON body (200 before 201 ..., then `2XX`). */
function successSchema(responses: unknown): unknown {
  if (!isObj(responses)) return undefined;
  const codes = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort();
  for (const code of codes) {
    const res = responses[code];
    const json = isObj(res) ? jsonContent(res.content) : undefined;
    if (json) return json.schema;
  }
  return undefined;
}

function descriptionOf(op: Obj, method: string, path: string): string {
  const parts = [op.summary, op.description].filter((t): t is string => typeof t === 'string' && t.trim() !== '');
  const unique = parts.length === 2 && parts[1]!.startsWith(parts[0]!) ? [parts[1]!] : parts;
  return [...unique, `(${method.toUpperCase()} ${path})`].join('\n\n');
}

/** Path-level parameters merged with the operation's (which win on the same name and location). */
function parametersOf(pathItem: Obj, op: Obj): Obj[] {
  const all = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])].filter(isObj);
  const byKey = new Map<string, Obj>();
  for (const p of all) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  return [...byKey.values()];
}

/** One operation as a tool; a string says why it cannot be one. */
function operationOf(doc: OpenapiDocument, path: string, method: string, pathItem: Obj, op: Obj, openapi30: boolean): Operation | string {
  const budget = new SchemaBudget();
  const convert = (s: unknown) => toJsonSchema(s, { openapi30, budget });
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const params: OperationParam[] = [];
  for (const p of parametersOf(pathItem, op)) {
    const where = p.in;
    if (typeof p.name !== 'string' || (where !== 'path' && where !== 'query' && where !== 'header' && where !== 'cookie')) continue;
    if (where === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
    const schema = p.schema !== undefined ? p.schema : jsonContent(p.content)?.schema;
    const key = Object.hasOwn(properties, p.name) ? `${where}.${p.name}` : p.name;
    const isRequired = where === 'path' || p.required === true;
    const converted = convert(schema ?? {});
    properties[key] = typeof p.description === 'string' && converted.description === undefined ? { ...converted, description: p.description } : converted;
    if (isRequired) required.push(key);
    params.push({
      name: p.name,
      in: where,
      key,
      required: isRequired,
      ...(typeof p.style === 'string' ? { style: p.style } : {}),
      ...(typeof p.explode === 'boolean' ? { explode: p.explode } : {}),
    });
  }
  let body: Operation['body'];
  if (isObj(op.requestBody)) {
    const rb = op.requestBody;
    const json = jsonContent(rb.content);
    const form = isObj(rb.content) && isObj(rb.content['application/x-www-form-urlencoded']) ? (rb.content['application/x-www-form-urlencoded'] as Obj) : undefined;
    if (!json && !form) return 'its request body is neither JSON nor a form';
    const key = Object.hasOwn(properties, 'body') ? 'requestBody' : 'body';
    const schema = convert(json ? json.schema : (form!.schema ?? {}));
    properties[key] = typeof rb.description === 'string' && schema.description === undefined ? { ...schema, description: rb.description } : schema;
    body = { key, required: rb.required === true, mediaType: json ? 'json' : 'form' };
    if (body.required) required.push(key);
  }
  const inputSchema: JsonSchema = { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
  const output = successSchema(op.responses);
  const converted = output === undefined ? undefined : convert(output);
  const upper = method.toUpperCase();
  const annotations: Record<string, unknown> = {};
  if (upper === 'GET' || upper === 'HEAD') annotations.readOnlyHint = true;
  else if (upper === 'PUT' || upper === 'DELETE') annotations.idempotentHint = true;
  const security = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : undefined;
  const operationId = typeof op.operationId === 'string' ? op.operationId : toolNameOf(undefined, method, path);
  const tool: ToolDescription = {
    name: toolNameOf(operationId, method, path),
    ...(typeof op.summary === 'string' ? { title: op.summary } : {}),
    description: descriptionOf(op, method, path),
    inputSchema,
    ...(converted === undefined ? {} : converted.type === 'object' ? { outputSchema: converted } : { resultSchema: converted }),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
  return { operationId, method: upper, path, params, ...(body ? { body } : {}), ...(security ? { security: security.filter(isObj) } : {}), tool };
}

/**
 * Every operation of the document (those in `allow` only, when given) with a unique tool name;
 * what cannot be offered is listed in `skipped`.
 */
export function operationsOf(doc: OpenapiDocument, allow?: readonly string[]): { operations: Operation[]; skipped: Skipped[] } {
  const openapi30 = doc.openapi.startsWith('3.0');
  const wanted = allow ? new Set(allow) : undefined;
  const operations: Operation[] = [];
  const skipped: Skipped[] = [];
  const names = new Set<string>();
  for (const [path, pathItem] of Object.entries(doc.paths)) {
    if (!isObj(pathItem) || !path.startsWith('/')) continue;
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!isObj(op)) continue;
      const id = typeof op.operationId === 'string' ? op.operationId : toolNameOf(undefined, method, path);
      if (wanted && !wanted.has(id)) continue;
      let made: Operation | string;
      try {
        made = operationOf(doc, path, method, pathItem, op, openapi30);
      } catch (err) {
        made = err instanceof Error ? err.message : String(err);
      }
      if (typeof made === 'string') {
        skipped.push({ operation: id, reason: made });
        continue;
      }
      let name = made.tool.name;
      for (let n = 2; names.has(name); n++) name = `${made.tool.name.slice(0, 60)}_${n}`;
      names.add(name);
      made.tool.name = name;
      operations.push(made);
    }
  }
  for (const id of wanted ?? []) if (!operations.some((o) => o.operationId === id) && !skipped.some((s) => s.operation === id)) skipped.push({ operation: id, reason: 'no such operationId' });
  return { operations, skipped };
}
