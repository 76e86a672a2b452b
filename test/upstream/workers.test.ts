/**
 * `server.workers` (issue 12 "Use every core"): two workers behind one port sharing one Redis store
 * both answer (distinct replica ids on /readyz, over fresh connections the primary hands out in
 * turn), and SIGTERM stops all of them cleanly.
 * The memory store with more than one worker is a config error that says why. With WORKERS set,
 * the primary loads no config (issue 23): its first worker does, and a config the workers cannot
 * run stops the primary with exit 1, said once.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/gateway.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';
import { describeOwnRedis, startRedis, type RedisServer } from '../support/redis.ts';

const LISTENING = /"pid":(\d+)[^\n]*nlgate listening/g;
const CATALOG_AGENT = { name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' };

/** How many distinct ready replicas answer `/readyz` at `url` (up to 2), over fresh connections: the primary hands them out round-robin. */
async function replicasAnswering(url: string): Promise<number> {
  const replicas = new Set<string>();
  for (let i = 0; i < 40 && replicas.size < 2; i++) {
    const dispatcher = new Agent({ pipelining: 0 });
    const res = await request(`${url}/readyz`, { dispatcher, reset: true });
    const body = (await res.body.json()) as { status: string; replica: string };
    expect(body.status).toBe('ready');
    replicas.add(body.replica);
    await dispatcher.close();
  }
  return replicas.size;
}

// Two ways to ask for two workers: the config file (the primary loads it), or WORKERS (the primary
// loads no config; its first worker does, issue 23). Each serves and stops the same way.
for (const [how, workersInFile, env] of [
  ['server.workers: 2 in the file', { server: { workers: 2 } }, {}],
  ['WORKERS=2 from the environment (the primary loads no config)', {}, { WORKERS: '2' }],
] as const) {
  describeOwnRedis(`workers with the Redis store: ${how}`, () => {
    let redis: RedisServer;
    let gw: GatewayProcess;
    beforeAll(async () => {
      redis = await startRedis();
      gw = await spawnGateway({ store: { kind: 'redis', url: redis.url }, ...workersInFile, agents: [CATALOG_AGENT] }, env);
      // spawnGateway resolves on the first worker's line; the second may still be loading (regression:
      // on a loaded CI machine every request went to the first worker, which alone was listening).
      await gw.waitForOutput(LISTENING, 2);
    });
    afterAll(async () => {
      await gw?.stop();
      await redis?.stop();
    });

    it('both workers answer on the one port, with distinct replica ids', async () => {
      expect(await replicasAnswering(gw.url)).toBe(2);
    });

    it('SIGTERM stops every worker and the primary exits 0', async () => {
      const pids = [...gw.output().matchAll(LISTENING)].map((m) => Number(m[1]));
      expect(pids).toHaveLength(2);
      await gw.stop();
      expect(gw.child.exitCode).toBe(0);
      expect(gw.output()).toContain('stopping the workers');
      for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    });
  });
}

describe('workers with the memory store', () => {
  const check = (config: Record<string, unknown>, env: Record<string, string> = {}) => {
    const file = join(REPO_ROOT, `.nlgate-workers-${process.pid}-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, stringify(config));
    try {
      return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'check-config', '--config', file], { cwd: REPO_ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
    } finally {
      rmSync(file, { force: true });
    }
  };

  it('workers: 2 is refused by check-config, saying the memory store needs workers: 1', () => {
    const out = check({ server: { workers: 2 }, agents: [CATALOG_AGENT] });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('workers');
    expect(out.stderr).toContain('memory store');
  });

  it('WORKERS=2 overrides a valid file and is refused the same way', () => {
    const out = check({ agents: [CATALOG_AGENT] }, { WORKERS: '2' });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('memory store');
  });

  it('a bad WORKERS value is a clear error', () => {
    const out = check({ agents: [CATALOG_AGENT] }, { WORKERS: 'many' });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('WORKERS must be "auto" or a whole number');
  });
});

describe('WORKERS=2 and a config the workers cannot run', () => {
  const serve = (config: Record<string, unknown>) => {
    const file = join(REPO_ROOT, `.nlgate-workers-${process.pid}-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, stringify(config));
    try {
      return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--config', file], {
        cwd: REPO_ROOT,
        env: { ...process.env, WORKERS: '2', PORT: '0', HOST: '127.0.0.1' },
        encoding: 'utf8',
        timeout: 30_000,
      });
    } finally {
      rmSync(file, { force: true });
    }
  };

  it('the memory store: the primary stops with exit 1, the reason said once (not a restart loop)', () => {
    const out = serve({ agents: [CATALOG_AGENT] });
    expect(out.status).toBe(1);
    expect(out.stderr.match(/the memory store keeps state inside one process/g)).toHaveLength(1);
    expect(out.stdout).not.toContain('starting another');
  }, 40_000);

  it('an invalid config: the primary stops with exit 1 and the worker says what is wrong', () => {
    const out = serve({ agents: [{ name: 'x', kind: 'no-such-kind', url: 'http://127.0.0.1:9' }] });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('unknown kind "no-such-kind"');
    expect(out.stdout).toContain('a worker cannot run the config');
  }, 40_000);
});
