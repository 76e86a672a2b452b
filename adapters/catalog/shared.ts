/**
 * One parse and one search index per catalog file, shared by every agent that serves the same
 * content (issue 23): two agents over one file (the embedded default's `recipes` and `slow-recipes`)
 * used to parse it and build its index twice at start-up, each copy held for the process's life.
 * Only what an agent never changes is shared: each gets its own Catalog object, and an agent that
 * keeps some `sites` indexes its own subset. Nothing is kept alive for the cache's sake (WeakRef,
 * WeakMap): a catalog goes when its last agent goes, and an edited file is parsed again.
 */
import { createHash } from 'node:crypto';
import { type Catalog, type CatalogEntry, parseCatalog, readCatalogText } from './load.ts';
import { filterableFields } from './filters.ts';
import { CatalogIndex } from './search.ts';

const parsed = new Map<string, { digest: string; name: string; format: Catalog['format']; entries: WeakRef<CatalogEntry[]> }>();
const indexes = new WeakMap<readonly CatalogEntry[], { index: CatalogIndex; fields: ReadonlyMap<string, string> }>();

/** The catalog in the file at `path` (read each time): parsed once per content, a fresh Catalog object per call. */
export function loadSharedCatalog(path: string): Catalog {
  const text = readCatalogText(path);
  const digest = createHash('sha256').update(text).digest('base64');
  const seen = parsed.get(path);
  // The entries stay alive as long as an agent holds them (each agent's Catalog refers to them).
  const entries = seen?.digest === digest ? seen.entries.deref() : undefined;
  if (seen !== undefined && entries !== undefined) return { name: seen.name, format: seen.format, entries };
  const catalog = parseCatalog(text, path);
  parsed.set(path, { digest, name: catalog.name, format: catalog.format, entries: new WeakRef(catalog.entries) });
  return catalog;
}

/** The search index and the filterable fields over `entries`, built once per entries array. */
export function sharedIndex(entries: readonly CatalogEntry[]): { index: CatalogIndex; fields: ReadonlyMap<string, string> } {
  let built = indexes.get(entries);
  if (built === undefined) indexes.set(entries, (built = { index: new CatalogIndex(entries), fields: filterableFields(entries) }));
  return built;
}
