import { resolve } from 'node:path';
import type { AdapterFactory } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import { CatalogAgent } from './agent.ts';
import { type CatalogConfig, CatalogConfigSchema } from './config.ts';
import { loadSharedCatalog } from './shared.ts';
import { fold } from './text.ts';

export { CatalogAgent } from './agent.ts';
export { type CatalogConfig, CatalogConfigSchema } from './config.ts';
export { loadCatalogFile, parseCatalog } from './load.ts';

/**
 * The `catalog` adapter kind (design.md "An adapter"): a schema.org JSON/JSONL/RSS file served as an
 * NLWeb agent with full-text search. The file is read once, here, so a missing or broken file stops
 * the gateway at start-up with an error naming the file and line, instead of failing every ask.
 */
export const catalogAdapter: AdapterFactory<CatalogConfig> = {
  kind: 'catalog',
  configSchema: CatalogConfigSchema,
  // Asks are searches of a file: a lost one may run again (issue 24; `idempotent: false` opts out).
  asksAreQueries: true,
  create(config, deps) {
    const path = resolve(deps.baseDir, config.file);
    const catalog = loadSharedCatalog(path);
    if (config.sites !== undefined) {
      const wanted = new Set(config.sites.map(fold));
      const all = [...new Set(catalog.entries.map((e) => e.site))];
      catalog.entries = catalog.entries.filter((e) => wanted.has(fold(e.site)));
      if (catalog.entries.length === 0) {
        throw new GatewayError(
          'CONFIG_ERROR',
          `Catalog file ${path}: no item has a site among ${config.sites.join(', ')} (sites in the file: ${all.join(', ')})`,
        );
      }
    }
    deps.log.info({ file: catalog.name, items: catalog.entries.length }, 'catalog loaded');
    return new CatalogAgent(config, catalog);
  },
};
