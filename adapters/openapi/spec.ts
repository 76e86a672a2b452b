/**
 * Loading an OpenAPI description: read the document (a file or an http(s) URL, size-capped), parse
 * it (JSON or YAML), check it is OpenAPI 3.0 or 3.1, and resolve its `$ref`s with
 * @apidevtools/json-schema-ref-parser. The resolver is ours: a URL spec may reference only documents
 * of its own origin (fetched through the upstream policy), a file spec only files in its own folder.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve as resolvePath, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { $RefParser } from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml } from 'yaml';
import { GatewayError } from '../../src/base/errors.ts';
import type { Logger } from '../../src/base/logger.ts';
import type { UpstreamClient } from '../../src/core/upstream/index.ts';

/** Default cap on the spec document and on each document it references. */
export const DEFAULT_MAX_SPEC_BYTES = 4 * 1_048_576;
/** Most documents one spec may pull in through external `$ref`s. */
const MAX_REFERENCED_DOCUMENTS = 32;
const SPEC_TIMEOUT_MS = 15_000;

/** A resolved OpenAPI document (every `$ref` replaced; may contain cycles). */
export type OpenapiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, unknown> };

export interface SpecSource {
  agent: string;
  /** As configured: a path (relative to `baseDir`) or an http(s) URL. */
  spec: string;
  baseDir: string;
  http: UpstreamClient;
  maxBytes: number;
  log: Logger;
}

/** Where a spec lives: a URL, or an absolute file path. */
export type SpecLocation = { url: URL } | { file: string };

/** The spec's location as configured. */
export function specLocation(spec: string, baseDir: string): SpecLocation {
  if (/^https?:\/\//i.test(spec)) return { url: new URL(spec) };
  return { file: resolvePath(baseDir, spec) };
}

function unusable(agent: string, reason: string, cause?: unknown): GatewayError {
  return new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" has an OpenAPI description that cannot be used: ${reason}`, cause === undefined ? {} : { cause });
}

async function readUrl(src: SpecSource, url: URL): Promise<string> {
  const res = await src.http.request({ url, headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.1' }, timeoutMs: SPEC_TIMEOUT_MS });
  if (!res.ok) {
    res.cancel();
    throw unusable(src.agent, `HTTP ${res.status} for the description`);
  }
  const text = await res.text();
  if (Buffer.byteLength(text) > src.maxBytes) throw unusable(src.agent, `a document is larger than ${src.maxBytes} bytes`);
  return text;
}

async function readLocalFile(src: SpecSource, file: string): Promise<string> {
  const info = await stat(file).catch((err: unknown) => {
    throw unusable(src.agent, `cannot read ${relative(src.baseDir, file) || file}`, err);
  });
  if (!info.isFile()) throw unusable(src.agent, `${relative(src.baseDir, file)} is not a file`);
  if (info.size > src.maxBytes) throw unusable(src.agent, `a document is larger than ${src.maxBytes} bytes`);
  return readFile(file, 'utf8');
}

/** JSON or YAML text as a value; YAML aliases are bounded (no "billion laughs"). */
export function parseDocument(text: string): unknown {
  return parseYaml(text, { maxAliasCount: 100, prettyErrors: false });
}

/**
 * The resolver every `$ref` to another document goes through: same origin or same folder, capped.
 * `refused` keeps the first refusal: the library wraps what a resolver throws in its own error.
 */
function refResolver(src: SpecSource, where: SpecLocation) {
  let documents = 0;
  const state: { refused?: GatewayError } = {};
  const read = async (file: { url: string }): Promise<string> => {
    if (++documents > MAX_REFERENCED_DOCUMENTS) throw unusable(src.agent, `more than ${MAX_REFERENCED_DOCUMENTS} referenced documents`);
    if ('url' in where) {
      let target: URL;
      try {
        target = new URL(file.url);
      } catch {
        throw unusable(src.agent, 'a $ref that is not a URL');
      }
      if (target.origin !== where.url.origin) throw unusable(src.agent, `a $ref to another origin (${target.protocol}//${target.host}), which the gateway does not follow`);
      target.hash = '';
      return readUrl(src, target);
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(file.url) && !file.url.startsWith('file:')) throw unusable(src.agent, 'a $ref to a URL from a file description, which the gateway does not follow');
    const path = file.url.startsWith('file:') ? fileURLToPath(file.url) : decodeURI(file.url);
    const folder = dirname(where.file);
    const rel = relative(folder, path);
    if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) throw unusable(src.agent, 'a $ref to a file outside the description\u2019s folder');
    return readLocalFile(src, path);
  };
  const guarded = async (file: { url: string }): Promise<string> => {
    try {
      return await read(file);
    } catch (err) {
      if (err instanceof GatewayError) state.refused ??= err;
      throw err;
    }
  };
  return { state, resolver: { order: 1, canRead: true, read: guarded } };
}

/** Reads, parses and resolves the description; throws GatewayError UPSTREAM_ERROR naming the problem. */
export async function loadSpec(src: SpecSource): Promise<{ document: OpenapiDocument; location: SpecLocation }> {
  const where = specLocation(src.spec, src.baseDir);
  const text = 'url' in where ? await readUrl(src, where.url) : await readLocalFile(src, where.file);
  let raw: unknown;
  try {
    raw = parseDocument(text);
  } catch (err) {
    throw unusable(src.agent, 'not JSON or YAML', err);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw unusable(src.agent, 'not an object');
  const version = (raw as Record<string, unknown>).openapi;
  if (typeof version !== 'string' || !/^3\.[01]\.\d+/.test(version)) throw unusable(src.agent, 'only OpenAPI 3.0 and 3.1 descriptions are read (no `openapi: 3.0.x` or `3.1.x` field)');
  const paths = (raw as Record<string, unknown>).paths;
  if (paths === null || typeof paths !== 'object' || Array.isArray(paths)) throw unusable(src.agent, 'it has no `paths`');
  const base = 'url' in where ? where.url.href : pathToFileURL(where.file).href;
  const refs = refResolver(src, where);
  try {
    const document = await $RefParser.dereference(base, raw, {
      resolve: { file: false, http: false, gateway: refs.resolver },
      parse: { text: false, binary: false },
      dereference: { circular: true },
      timeoutMs: SPEC_TIMEOUT_MS,
    } as never);
    return { document: document as unknown as OpenapiDocument, location: where };
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    if (refs.state.refused) throw refs.state.refused;
    // The library's message may name local paths: the log has it, the client a short reason.
    src.log.warn({ agent: src.agent, err: String(err) }, 'cannot resolve the $refs of an OpenAPI description');
    throw unusable(src.agent, 'a $ref cannot be resolved', err);
  }
}
