import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectEveryDemoAgentAnswers } from '../support/demo-stack.ts';
import { REPO_ROOT } from '../support/gateway.ts';
import { describeOwnRedis, freePort, startRedis, type RedisServer } from '../support/redis.ts';
import { spawnListening, type Listening } from '../support/spawn-url.ts';

// The compose stack without Docker: the same processes docker-compose.yml starts (demo agents,
// two gateway replicas on deploy/gateway.yaml, nginx on deploy/nginx.conf, Redis), each started the
// way the compose file says, on loopback and free ports instead of service names.
const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
  // (each service's command is run below, with dist/ replaced by this test's own build folder)
};


const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describeOwnRedis('the compose stack run as processes: nginx → two replicas → demo agents, one Redis', () => {
  let redis: RedisServer;
  const running: Listening[] = [];
  let nginx: ChildProcess | undefined;
  let dir: string;
  let lb: string;
  const dist = `.nlgate-test-dist-${process.pid}`;

  beforeAll(async () => {
    redis = await startRedis();
    // The compiled code, as in the image: built into a folder of this test's own.
    await new Promise<void>((resolve, reject) => {
      const b = spawn(process.execPath, ['scripts/build.mjs', dist], { cwd: REPO_ROOT, stdio: 'inherit' });
      b.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build exited ${code}`))));
    });
    // Demo agents, with the command each compose service runs (compiled there, from source here).
    const agentUrl: Record<string, string> = {};
    for (const name of ['webtool', 'nlip-agent', 'legacy-agent']) {
      const [, script, which] = compose.services[name]!.command!;
      expect(script).toBe('dist/demo-agents.js');
      const agent = await spawnListening([script!.replace('dist/', `${dist}/`), which!], { HOST: '127.0.0.1', PORT: '0' });
      running.push(agent);
      agentUrl[name] = agent.url;
    }
    const gatewayEnv = {
      ...compose.services['gateway-a']!.environment!,
      NLGATE_CONFIG: join(REPO_ROOT, 'deploy/gateway.yaml'),
      REDIS_URL: redis.url,
      KITCHEN_URL: `${agentUrl.webtool}/kitchen`,
      NLIP_AGENT_URL: agentUrl['nlip-agent']!,
      LEGACY_AGENT_URL: agentUrl['legacy-agent']!,
      HOST: '127.0.0.1',
      PORT: '0',
    };
    const [, cli, ...args] = compose.services['gateway-a']!.command!;
    const replicas = await Promise.all([0, 1].map(() => spawnListening([cli!.replace('dist/', `${dist}/`), ...args], gatewayEnv)));
    running.push(...replicas);
    // nginx with the repository's config; only the addresses change.
    dir = mkdtempSync(join(tmpdir(), 'nlgate-nginx-'));
    const port = await freePort();
    const conf = readFileSync(join(REPO_ROOT, 'deploy/nginx.conf'), 'utf8')
      .replace('server gateway-a:8080', `server ${new URL(replicas[0]!.url).host}`)
      .replace('server gateway-b:8080', `server ${new URL(replicas[1]!.url).host}`)
      .replace('listen 8080;', `listen 127.0.0.1:${port};`)
      .replaceAll('/tmp/', `${dir}/`)
      .replace('access_log /dev/stdout;', 'access_log off;')
      .replace('error_log /dev/stderr', `error_log ${dir}/error.log`);
    mkdirSync(join(dir, 'logs'));
    writeFileSync(join(dir, 'nginx.conf'), conf);
    nginx = spawn('nginx', ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
    const stderr = () => readFileSync(join(dir, 'error.log'), 'utf8');
    lb = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${lb}/healthz`).then((r) => r.ok, () => false);
      if (ok) break;
      if (i > 100 || nginx.exitCode !== null) throw new Error(`nginx did not start: ${stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 90_000);

  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    await Promise.all(running.map((p) => p.stop()));
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    rmSync(join(REPO_ROOT, dist), { recursive: true, force: true });
  });

  it('answers on every protocol through the load balancer', async () => {
    await expectEveryDemoAgentAnswers(lb);
  });

  it('streams SSE through nginx unbuffered and in order', async () => {
    const res = await fetch(`${lb}/ask`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: '{"query":{"text":"curry"}}' });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = [...(await res.text()).matchAll(/^event: (\w+)/gm)].map((m) => m[1]);
    expect(events[0]).toBe('start');
    expect(events.at(-1)).toBe('complete');
  });

  it('settles a promise made on one replica when checked in on either (round-robin, state in Redis)', async () => {
    const asked = await post(`${lb}/ask`, { query: { text: 'pasta', site: 'slow-recipes' } });
    expect(asked.status).toBe(202);
    const { promise } = (await asked.json()) as { promise: { token: string } };
    // Several check-ins: nginx alternates between the replicas, and every one knows the token.
    const answers = await Promise.all(
      [0, 1, 2, 3].map(async () => ((await (await post(`${lb}/await`, { promise_token: promise.token, action: 'checkin', wait_ms: 10_000 })).json()) as { _meta: { response_type: string } })._meta.response_type),
    );
    expect(answers).toEqual(['answer', 'answer', 'answer', 'answer']);
  });
});
