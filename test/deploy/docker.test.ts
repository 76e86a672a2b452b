import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { builtinAdapters } from '../../adapters/index.ts';
import { loadConfigFile } from '../../src/config/load.ts';
import { REPO_ROOT } from '../support/gateway.ts';

// No Docker engine runs on CI machines, so the image cannot be built here: these tests check what
// can be checked without one (every COPY source exists, the compose file parses and names a config
// that validates).
describe('Dockerfile and docker-compose.yml', () => {
  it('copies only paths that exist and runs the CLI', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const copies = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(copies.length).toBeGreaterThan(3);
    for (const src of copies) expect(existsSync(join(REPO_ROOT, src)), src).toBe(true);
    expect(dockerfile).toMatch(/CMD \[.*"src\/cli\.ts", "serve"\]/);
  });

  it('has a compose file whose gateway config validates', () => {
    const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
    const gateway = compose.services['gateway-a'];
    expect(compose.services['gateway-b'].environment.NLGATE_CONFIG).toBe(gateway.environment.NLGATE_CONFIG);
    const configPath = join(REPO_ROOT, gateway.environment.NLGATE_CONFIG.replace('/app/', ''));
    const loaded = loadConfigFile(configPath, { adapters: builtinAdapters, env: { REDIS_URL: 'redis://redis:6379' } });
    expect(loaded.config.store).toMatchObject({ kind: 'redis', url: 'redis://redis:6379' });
  });
});
