import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AdapterFactory } from '../core/agent.ts';
import { ConfigError, interpolateEnv, loadConfigFile, parseConfig } from './load.ts';

const fileAdapter: AdapterFactory<{ file: string }> = {
  kind: 'filekind',
  configSchema: z.object({ file: z.string() }).strict(),
  create: () => {
    throw new Error('not used');
  },
};
const adapters = [fileAdapter];

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('fills defaults and keeps the adapter fields', () => {
    const { config } = parseConfig({ agents: [{ name: 'a', kind: 'filekind', file: 'x.jsonl' }] }, { adapters });
    expect(config.server).toMatchObject({ port: 8080, host: '127.0.0.1' });
    expect(config.store).toEqual({ kind: 'memory', maxConversations: 50_000, maxRecords: 50_000, maxConversationsPerOwner: 1_000, maxRecordsPerOwner: 1_000 });
    expect(config.defaults.promiseAfterMs).toBe(5000);
    expect(config.agents[0]).toMatchObject({ name: 'a', file: 'x.jsonl' });
  });

  it('names the path and the problem for bad adapter fields, unknown kinds and duplicates', () => {
    expect(problems(() => parseConfig({ agents: [{ name: 'a', kind: 'filekind' }] }, { adapters }))[0]).toMatch(/^agents\.0\.file: /);
    expect(problems(() => parseConfig({ agents: [{ name: 'a', kind: 'filekind', file: 'f', extra: 1 }] }, { adapters }))[0]).toMatch(/agents\.0/);
    expect(problems(() => parseConfig({ agents: [{ name: 'a', kind: 'nope' }] }, { adapters }))[0]).toContain('unknown kind "nope"');
    const dup = { agents: [{ name: 'a', kind: 'filekind', file: 'f' }, { name: 'a', kind: 'filekind', file: 'g' }] };
    expect(problems(() => parseConfig(dup, { adapters }))[0]).toContain('duplicate agent name');
    expect(problems(() => parseConfig({ agents: [] }, { adapters }))[0]).toMatch(/^agents: /);
    expect(problems(() => parseConfig({ agents: [{ name: 'bad name!', kind: 'filekind', file: 'f' }] }, { adapters }))[0]).toMatch(/agents\.0\.name/);
    expect(problems(() => parseConfig({ defaultAgent: 'z', agents: [{ name: 'a', kind: 'filekind', file: 'f' }] }, { adapters }))[0]).toContain('defaultAgent');
  });

  it('rejects a store URL that is not a Redis URL', () => {
    const raw = { store: { kind: 'redis', url: 'http://x' }, agents: [{ name: 'a', kind: 'filekind', file: 'f' }] };
    expect(problems(() => parseConfig(raw, { adapters }))[0]).toMatch(/^store\.url: /);
  });
});

describe('environment interpolation', () => {
  it('replaces ${VAR} and ${VAR:-default}, and names a missing variable with its path', () => {
    const env = { HOST_A: 'h', EMPTY: '' };
    expect(interpolateEnv({ a: 'x-${HOST_A}', b: ['${NOPE:-dflt}', 3] }, env)).toEqual({ a: 'x-h', b: ['dflt', 3] });
    const missing: string[] = [];
    interpolateEnv({ agents: [{ url: '${MISSING_URL}' }] }, env, [], missing);
    expect(missing).toEqual(['agents.0.url: environment variable MISSING_URL is not set']);
    expect(problems(() => parseConfig({ agents: [{ name: 'a', kind: 'filekind', file: '${EMPTY}' }] }, { adapters, env }))[0]).toContain('EMPTY');
  });
});

describe('loadConfigFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nlgate-config-'));
  it('names the file for unreadable and invalid YAML', () => {
    const err = (() => {
      try {
        loadConfigFile(join(dir, 'missing.yaml'), { adapters });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err?.message).toContain('missing.yaml');
    writeFileSync(join(dir, 'bad.yaml'), 'agents: [\n  - name: a\n  kind');
    expect(() => loadConfigFile(join(dir, 'bad.yaml'), { adapters })).toThrow(/bad\.yaml[\s\S]*not valid YAML/);
  });

  it('resolves relative paths against the file folder', () => {
    writeFileSync(join(dir, 'ok.yaml'), 'agents:\n  - name: a\n    kind: filekind\n    file: data.jsonl\n');
    const loaded = loadConfigFile(join(dir, 'ok.yaml'), { adapters });
    expect(loaded.baseDir).toBe(dir);
  });
});
