import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DOCS_FILE, docsText, SCHEMA_FILE, schemaText } from '../../scripts/config-reference.ts';
import { REPO_ROOT } from '../support/gateway.ts';

/** Every config file in the repository that a user might copy: the default, the examples, deploy/. */
function configFiles(): string[] {
  const inDir = (dir: string) => readdirSync(join(REPO_ROOT, dir)).filter((f) => /\.ya?ml$/.test(f)).map((f) => `${dir}/${f}`);
  return ['config/gateway.yaml', ...inDir('config/examples'), ...inDir('deploy').filter((f) => f.startsWith('deploy/gateway')), 'deploy/k8s/gateway-sidecar.yaml'];
}

describe('config JSON Schema and reference page (npm run docs:config)', () => {
  it('config/nlgate.schema.json is what the zod schemas generate now', () => {
    const committed = readFileSync(join(REPO_ROOT, SCHEMA_FILE), 'utf8');
    expect(committed, 'run `npm run docs:config` and commit the result').toBe(schemaText());
  });

  it('docs/configuration.md is what the schema generates now', () => {
    const committed = readFileSync(join(REPO_ROOT, DOCS_FILE), 'utf8');
    expect(committed, 'run `npm run docs:config` and commit the result').toBe(docsText());
  });

  it('every config file names the schema on its first line, and the schema accepts it', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('uri', true);
    const validate = ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, SCHEMA_FILE), 'utf8')));
    const files = configFiles();
    expect(files.length).toBeGreaterThan(7);
    for (const file of files) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      const modeline = text.split('\n')[0]!.match(/^# yaml-language-server: \$schema=(\S+)$/);
      expect(modeline, `${file}: first line`).not.toBeNull();
      expect(resolve(dirname(join(REPO_ROOT, file)), modeline![1]!), file).toBe(join(REPO_ROOT, SCHEMA_FILE));
      expect(validate(parse(text)) ? [] : validate.errors, file).toEqual([]);
    }
  });

  it('the schema catches what an editor should flag: an unknown field, a missing file, a wrong kind', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addFormat('uri', true);
    const validate = ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, SCHEMA_FILE), 'utf8')));
    expect(validate({ agents: [{ name: 'r', kind: 'catalog', file: 'x.jsonl' }] })).toBe(true);
    expect(validate({ agents: [{ name: 'r', kind: 'catalog', file: 'x.jsonl', flie: 'typo' }] })).toBe(false);
    expect(validate({ agents: [{ name: 'r', kind: 'catalog' }] })).toBe(false);
    expect(validate({ agents: [{ name: 'r', kind: 'telepathy' }] })).toBe(false);
    expect(validate({ server: { prot: 1 }, agents: [{ name: 'r', kind: 'catalog', file: 'x' }] })).toBe(false);
    // An ${ENV} placeholder where a URL is due is fine: the loader fills it in before validating.
    expect(validate({ store: { kind: 'redis', url: '${REDIS_URL}' }, agents: [{ name: 'r', kind: 'nlweb', url: '${UP:-http://x}' }] })).toBe(true);
  });
});
