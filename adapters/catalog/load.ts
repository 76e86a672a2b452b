import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { GatewayError } from '../../src/base/errors.ts';
import { looksLikeXml, parseRss, RssSyntaxError } from './rss.ts';
import { firstText, isPlainObject } from './text.ts';

/** The file formats a catalog can be written in. */
export type CatalogFormat = 'json' | 'jsonl' | 'rss';

/** One catalog item plus what the index needs to know about it without re-reading the JSON. */
export interface CatalogEntry {
  /** Position in the catalog (the search index's document id). */
  idx: number;
  /** The schema.org item as written in the file (with `@context` inherited from an ItemList/@graph). */
  item: Record<string, unknown>;
  /** The item's sub-corpus: its own `site`, else the feed's host (RSS), else the file's stem. */
  site: string;
  /** The item's `@type`s (JSON-LD allows an array); empty when it has none. */
  types: string[];
}

/** A loaded catalog: where it came from and its items. */
export interface Catalog {
  /** The file's base name (e.g. `recipes.jsonl`), quoted in each result's `grounding.catalog`. */
  name: string;
  format: CatalogFormat;
  entries: CatalogEntry[];
}

/** A load failure naming the file and, where known, the line: a config problem, found at start-up. */
function loadError(file: string, problem: string, line?: number): GatewayError {
  const where = line === undefined ? '' : `, line ${line}`;
  return new GatewayError('CONFIG_ERROR', `Catalog file ${file}${where}: ${problem}`, {
    details: line === undefined ? { file } : { file, line },
  });
}

/** 1-based line number of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** V8's JSON.parse message without the echoed input ("Unexpected token '}', "..." is not valid JSON"). */
function jsonProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/, (?:\.\.\.)?"[\s\S]*is not valid JSON$/, '').replace(/ in JSON at position \d+[\s\S]*$/, '');
}

/** True when `prefix` fails to parse for a reason other than ending too early. */
function failsBeforeEnd(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return false;
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    if (message.includes('Unexpected end of JSON input')) return false;
    const at = /at position (\d+)/.exec(message);
    return !(at && Number(at[1]) >= prefix.length);
  }
}

/**
 * Where a JSON text goes wrong. V8 gives a position for most errors but not for "Unexpected token";
 * then bisect for the shortest prefix that fails before its end (only runs on a broken file).
 */
function jsonErrorOffset(text: string, err: unknown): number {
  const at = err instanceof Error ? /at position (\d+)/.exec(err.message) : null;
  if (at) return Number(at[1]);
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (failsBeforeEnd(text.slice(0, mid + 1))) hi = mid;
    else lo = mid + 1;
  }
  return Math.min(lo, text.length);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Chooses the format: by extension first (.jsonl/.ndjson, .json/.jsonld, .rss/.xml), else by content. */
export function detectFormat(text: string, file: string): CatalogFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (ext === '.json' || ext === '.jsonld') return 'json';
  if (ext === '.rss' || ext === '.xml') return 'rss';
  if (looksLikeXml(text)) return 'rss';
  try {
    JSON.parse(text);
    return 'json';
  } catch {
    return text.trimStart().startsWith('{') ? 'jsonl' : 'json';
  }
}

/** The items of a JSON document: an array, an ItemList (`itemListElement`, ListItems unwrapped), an `@graph`, or one item. */
function jsonItems(text: string, file: string): Array<Record<string, unknown>> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    const hint = /non-whitespace character after JSON/.test(String(err)) ? ' (one item per line? name the file .jsonl)' : '';
    throw loadError(file, `not valid JSON: ${jsonProblem(err)}${hint}`, lineAt(text, jsonErrorOffset(text, err)));
  }
  let list: unknown[];
  let where = 'the array';
  let context: unknown;
  if (Array.isArray(doc)) list = doc;
  else if (isPlainObject(doc) && Array.isArray(doc['@graph'])) [list, where, context] = [doc['@graph'], '@graph', doc['@context']];
  else if (isPlainObject(doc) && Array.isArray(doc.itemListElement)) {
    [where, context] = ['itemListElement', doc['@context']];
    // A ListItem wraps the real item in `item`; a bare item in the list is taken as is.
    list = doc.itemListElement.map((el) => (isPlainObject(el) && isPlainObject(el.item) ? el.item : el));
  } else if (isPlainObject(doc)) list = [doc];
  else throw loadError(file, `expected a JSON array, an ItemList, an @graph or one item object, got ${describeValue(doc)}`);
  return list.map((value, i) => {
    if (!isPlainObject(value)) throw loadError(file, `element ${i + 1} of ${where} is ${describeValue(value)}, not an item object`);
    return context !== undefined && value['@context'] === undefined ? { '@context': context, ...value } : value;
  });
}

/** The items of a JSON Lines document: one object per line, blank lines skipped. */
function jsonlItems(text: string, file: string): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (line.length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw loadError(file, `not valid JSON: ${jsonProblem(err)}`, i + 1);
    }
    if (!isPlainObject(value)) throw loadError(file, `expected one JSON object per line, got ${describeValue(value)}`, i + 1);
    items.push(value);
  }
  return items;
}

function typesOf(item: Record<string, unknown>): string[] {
  const t = item['@type'];
  if (typeof t === 'string') return t.length > 0 ? [t] : [];
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string' && x.length > 0) : [];
}

/**
 * Parses catalog text (JSON, JSONL or RSS 2.0) into entries. `file` names the source in errors and
 * gives the default `site` (its stem). Throws GatewayError CONFIG_ERROR naming the file and line.
 */
export function parseCatalog(text: string, file: string, format?: CatalogFormat): Catalog {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim().length === 0) throw loadError(file, 'the file is empty');
  const fmt = format ?? detectFormat(body, file);
  const stem = basename(file, extname(file)) || 'catalog';
  let raw: Array<Record<string, unknown>>;
  let defaultSite = stem;
  if (fmt === 'rss') {
    try {
      const feed = parseRss(body);
      [raw, defaultSite] = [feed.items, feed.site ?? stem];
    } catch (err) {
      if (err instanceof RssSyntaxError) throw loadError(file, err.message, lineAt(body, err.offset));
      throw err;
    }
  } else raw = fmt === 'jsonl' ? jsonlItems(body, file) : jsonItems(body, file);
  if (raw.length === 0) throw loadError(file, `no items found (read as ${fmt.toUpperCase()})`);
  const entries = raw.map((item, idx) => ({ idx, item, site: firstText(item.site) ?? defaultSite, types: typesOf(item) }));
  return { name: basename(file), format: fmt, entries };
}

/** Reads a catalog file's text (synchronously: it runs once, at start-up); a CONFIG_ERROR naming the file if it cannot. */
export function readCatalogText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (code ?? 'unreadable');
    throw loadError(path, `cannot read it (${reason})`);
  }
}

/** Reads a catalog file from disk (synchronously: it runs once, at start-up) and parses it. */
export function loadCatalogFile(path: string, format?: CatalogFormat): Catalog {
  return parseCatalog(readCatalogText(path), path, format);
}
