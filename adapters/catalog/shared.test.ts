import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.ts';
import { catalogAdapter } from './index.ts';
import { loadSharedCatalog, sharedIndex } from './shared.ts';

const dir = mkdtempSync(join(tmpdir(), 'nlgate-catalog-shared-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (name: string, site: string) => JSON.stringify({ '@type': 'Recipe', name, site });

describe('catalogs shared between agents of one file (issue 23)', () => {
  it('parses one file once and indexes it once, whatever the number of agents', () => {
    const file = join(dir, 'same.jsonl');
    writeFileSync(file, `${line('Pasta', 'a')}\n${line('Curry', 'b')}\n`);
    const first = loadSharedCatalog(file);
    const second = loadSharedCatalog(file);
    expect(second).not.toBe(first); // each agent its own Catalog object...
    expect(second.entries).toBe(first.entries); // ...over the same entries
    expect(sharedIndex(second.entries)).toBe(sharedIndex(first.entries));
  });

  it('parses an edited file again', () => {
    const file = join(dir, 'edited.jsonl');
    writeFileSync(file, `${line('Pasta', 'a')}\n`);
    const before = loadSharedCatalog(file);
    writeFileSync(file, `${line('Pasta', 'a')}\n${line('Soup', 'a')}\n`);
    const after = loadSharedCatalog(file);
    expect(after.entries).not.toBe(before.entries);
    expect(after.entries.map((e) => e.item.name)).toEqual(['Pasta', 'Soup']);
  });

  it('an agent that keeps some sites searches only those; the other agent of the file still sees all', async () => {
    const file = join(dir, 'sites.jsonl');
    writeFileSync(file, `${line('Pasta', 'a')}\n${line('Pasta bake', 'b')}\n`);
    const deps = { log: createLogger('silent'), baseDir: dir };
    const all = catalogAdapter.create({ name: 'all', kind: 'catalog', file: 'sites.jsonl', maxResults: 10, summarize: false }, deps);
    const onlyB = catalogAdapter.create({ name: 'only-b', kind: 'catalog', file: 'sites.jsonl', sites: ['b'], maxResults: 10, summarize: false }, deps);
    const names = async (agent: typeof all) => {
      const out: unknown[] = [];
      for await (const e of agent.ask({ query: { text: 'pasta' } }, { signal: new AbortController().signal, log: deps.log } as never)) {
        if (e.type === 'result') out.push((e.item as { name?: unknown }).name);
      }
      return out.sort();
    };
    expect(await names(all)).toEqual(['Pasta', 'Pasta bake']);
    expect(await names(onlyB)).toEqual(['Pasta bake']);
  });
});
