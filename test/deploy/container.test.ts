// The image as users deploy it (issue 23), in a real container runtime: `docker build` from the
// checkout, the container on a read-only root filesystem as a non-root user, SIGTERM with a stream
// open, and the shipped docker-compose.yml through its load balancer. Runs wherever a Docker daemon
// answers; .ci/run starts one on the CI machine, so under CI=true a missing daemon
// is a failure, never a skip.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEveryDemoAgentAnswers } from '../support/demo-stack.ts';
import { REPO_ROOT } from '../support/gateway.ts';
import { freePort } from '../support/redis.ts';

const run = promisify(execFile);
const IMAGE = `nlgate:test-${process.pid}`;
const daemon = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 20_000 }).status === 0;
/** `docker compose` (the plugin) or `docker-compose` (the standalone v1 tool), whichever is here. */
const compose = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0 ? ['docker', 'compose'] : ['docker-compose'];

const docker = async (args: string[], timeout = 120_000) => (await run('docker', args, { cwd: REPO_ROOT, timeout, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();


/** Polls `url` until it answers 200, for up to `ms`. */
async function until200(url: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

it('a Docker daemon is reachable where CI runs (CI never skips the container tests)', () => {
  if (process.env.CI !== 'true') return; // outside CI the suite below says it was skipped and why
  expect(daemon, 'no Docker daemon answers `docker info` (start Docker; in CI, .ci/run starts one)').toBe(true);
});

describe.skipIf(!daemon)('the image in a real container runtime (skipped: no Docker daemon answers `docker info`)', () => {
  beforeAll(async () => {
    // --network host: the build's `npm ci` reaches the registry the way this machine does.
    await docker(['build', '--network', 'host', '-t', IMAGE, '.'], 600_000);
  }, 610_000);
  afterAll(async () => {
    await docker(['image', 'rm', '-f', IMAGE]).catch(() => undefined);
  });

  describe('one container', () => {
    let id = '';
    let base = '';
    beforeAll(async () => {
      id = await docker(['run', '-d', '--read-only', '--tmpfs', '/tmp', '-p', '127.0.0.1::8080', IMAGE]);
      const port = (await docker(['port', id, '8080/tcp'])).split('\n')[0]!.split(':').at(-1);
      base = `http://127.0.0.1:${port}`;
      await until200(`${base}/healthz`);
    }, 90_000);
    afterAll(async () => {
      if (id) await docker(['rm', '-f', id]).catch(() => undefined);
    });

    it('answers /ask on a read-only root filesystem, as a non-root user', async () => {
      const res = await post(`${base}/ask`, { query: { text: 'pasta' } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
      const inspect = JSON.parse(await docker(['inspect', id]))[0] as { HostConfig: { ReadonlyRootfs: boolean } };
      expect(inspect.HostConfig.ReadonlyRootfs).toBe(true);
      expect(await docker(['exec', id, 'id', '-u'])).not.toBe('0');
      // The root filesystem really refuses writes (the gateway needs none).
      const write = await docker(['exec', id, 'sh', '-c', 'touch /app/x 2>&1 || echo refused']);
      expect(write).toMatch(/refused/);
    });

    it('holds no node_modules and no dev tooling: the bundle is self-contained', async () => {
      const listing = await docker(['exec', id, 'sh', '-c', 'ls /app; ls /app/node_modules 2>&1 | head -1']);
      expect(listing).toMatch(/dist/);
      expect(listing).toMatch(/No such file/);
    });

    it('exits 0 on SIGTERM while a stream is open, after the stream has its answer', async () => {
      // slow-recipes answers after 3 s: the stream is open when the signal arrives.
      const stream = fetch(`${base}/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: { text: 'pasta', site: 'slow-recipes' }, prefer: { streaming: true } }),
      }).then((r) => r.text());
      await new Promise((r) => setTimeout(r, 500));
      await docker(['stop', '-t', '30', id], 60_000);
      const events = [...(await stream).matchAll(/^event: (\w+)/gm)].map((m) => m[1]);
      expect(events.at(-1)).toBe('complete');
      const state = JSON.parse(await docker(['inspect', id]))[0] as { State: { ExitCode: number; Running: boolean } };
      expect(state.State.Running).toBe(false);
      expect(state.State.ExitCode).toBe(0);
    }, 60_000);
  });

  describe('docker compose up, the file as shipped', () => {
    const project = `nlgate-test-${process.pid}`;
    let port = 0;
    let lb = '';
    const composeRun = async (args: string[], timeout = 180_000) => {
      const [cmd, ...pre] = compose;
      return (await run(cmd!, [...pre, '-p', project, ...args], { cwd: REPO_ROOT, timeout, env: { ...process.env, NLGATE_PORT: String(port) } })).stdout.trim();
    };
    /** Runs `fetch` inside one replica's container (the image has node, not curl). */
    const inReplica = async (service: string, script: string) => composeRun(['exec', '-T', service, 'node', '-e', script]);

    beforeAll(async () => {
      port = await freePort();
      lb = `http://127.0.0.1:${port}`;
      // The image this test built is the one the file names (`image: nlgate:local`, built from `.`).
      await docker(['tag', IMAGE, 'nlgate:local']);
      await composeRun(['up', '-d', '--no-build'], 300_000);
      await until200(`${lb}/readyz`, 120_000);
    }, 420_000);
    afterAll(async () => {
      await composeRun(['down', '--remove-orphans', '--timeout', '5']).catch(() => undefined);
    }, 120_000);

    it('answers through the balancer on every demo agent, on every protocol', async () => {
      await expectEveryDemoAgentAnswers(lb);
    });

    it('answers through one replica a promise made through the other (state in Redis)', async () => {
      const ask = `fetch('http://127.0.0.1:8080/ask',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({query:{text:'pasta',site:'slow-recipes'}})}).then(async r=>console.log(r.status,JSON.stringify(await r.json())))`;
      const asked = await inReplica('gateway-a', ask);
      const [status, body] = [asked.slice(0, 3), JSON.parse(asked.slice(4)) as { promise: { token: string } }];
      expect(status).toBe('202');
      const checkin = `fetch('http://127.0.0.1:8080/await',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({promise_token:${JSON.stringify(body.promise.token)},action:'checkin',wait_ms:10000})}).then(async r=>console.log(JSON.stringify(await r.json())))`;
      const answered = JSON.parse(await inReplica('gateway-b', checkin)) as { _meta: { response_type: string }; results: unknown[] };
      expect(answered._meta.response_type).toBe('answer');
      expect(answered.results.length).toBeGreaterThan(0);
    }, 60_000);

    it('docker compose down leaves nothing running', async () => {
      await composeRun(['down', '--remove-orphans', '--timeout', '5']);
      const left = await docker(['ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}']);
      expect(left).toBe('');
      const networks = await docker(['network', 'ls', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Name}}']);
      expect(networks).toBe('');
    }, 120_000);
  });
});
