import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { DEMO_AGENTS } from '../../examples/demo-agents.ts';
import { loadConfigFile } from '../../src/config/load.ts';
import { clientAddressResolver } from '../../src/edge/client-address.ts';
import { REPO_ROOT } from '../support/gateway.ts';

// No container engine here: the compose file is parsed and checked against the fields that matter,
// and against the files and the app it names.
const text = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
const compose = parse(text, { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: string[] | Record<string, { condition: string }>;
  read_only?: boolean;
}

const dependsOn = (s: Service) => (Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {}));
const gateways = Object.entries(services).filter(([, s]) => s.command?.join(' ') === 'node dist/cli.js serve');

describe('docker-compose.yml', () => {
  it('has Redis, two gateway replicas behind nginx, and a demo agent of each kind', () => {
    expect(Object.keys(services).sort()).toEqual(['gateway-a', 'gateway-b', 'legacy-agent', 'nginx', 'nlip-agent', 'redis', 'webtool']);
    expect(gateways.map(([name]) => name)).toEqual(['gateway-a', 'gateway-b']);
  });

  it('publishes only nginx, and only on 127.0.0.1', () => {
    for (const [name, s] of Object.entries(services)) {
      if (name === 'nginx') {
        expect(s.ports).toEqual(['127.0.0.1:${NLGATE_PORT:-8080}:8080']);
      } else expect(s.ports, name).toBeUndefined();
    }
  });

  it('names in its comment only services that exist', () => {
    const comment = text.split('\n').filter((l) => l.startsWith('#')).join('\n');
    // Service-like names, and anything in backticks (the old comment told users to replace `agent`).
    const named = [...comment.matchAll(/\b(gateway-[a-z]|[a-z]+-agent|webtool|redis|nginx)\b|`([a-z][a-z0-9-]*)`/g)].map((m) => (m[1] ?? m[2])!);
    expect(named.length).toBeGreaterThan(5);
    for (const name of new Set(named)) expect(Object.keys(services), `comment names "${name}"`).toContain(name);
  });

  it('depends only on services that exist, and builds the one image everything runs', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const dep of dependsOn(s)) expect(Object.keys(services), `${name} depends on ${dep}`).toContain(dep);
      if (s.image === 'nlgate:local') expect(s.build, name).toBe('.');
    }
    for (const [name] of gateways) expect(dependsOn(services[name]!)).toEqual(expect.arrayContaining(['redis', 'webtool', 'nlip-agent', 'legacy-agent']));
  });

  it('gives both replicas the same Redis-backed config, with WORKERS=auto, and that config validates', () => {
    const [[, a], [, b]] = gateways as [[string, Service], [string, Service]];
    expect(b.environment).toEqual(a.environment);
    expect(a.environment).toMatchObject({ REDIS_URL: 'redis://redis:6379', WORKERS: 'auto' });
    const mount = a.volumes!.map((v) => v.split(':')).find(([, inside]) => inside === a.environment!.NLGATE_CONFIG)!;
    expect(mount, 'the config file is mounted where NLGATE_CONFIG points').toBeDefined();
    const loaded = loadConfigFile(join(REPO_ROOT, mount[0]!), { adapters: builtinAdapters, env: { REDIS_URL: a.environment!.REDIS_URL } });
    expect(loaded.config.store).toMatchObject({ kind: 'redis', url: 'redis://redis:6379' });
    // The relative catalog path resolves inside the image too: /app/deploy/../examples/catalog.
    expect(loaded.config.agents.filter((g) => g.kind === 'catalog').map((g) => join('/app/deploy', g.file as string))).toContain('/app/examples/catalog/recipes.jsonl');
  });

  it("points each agent of the gateway config at a demo agent service and the port it listens on", () => {
    const cfg = loadConfigFile(join(REPO_ROOT, 'deploy/gateway.yaml'), { adapters: builtinAdapters, env: { REDIS_URL: 'redis://redis:6379' } }).config;
    const remote = cfg.agents.filter((g) => typeof g.url === 'string');
    expect(remote.map((g) => g.kind).sort()).toEqual(['nlip', 'nlweb-legacy', 'webtool']);
    for (const agent of remote) {
      const url = new URL(agent.url as string);
      const service = services[url.hostname];
      expect(service, `${agent.name}: ${url.hostname}`).toBeDefined();
      expect(service!.environment!.PORT, agent.name).toBe(url.port);
      expect(service!.command!.slice(0, 2)).toEqual(['node', 'dist/demo-agents.js']);
      expect(Object.keys(DEMO_AGENTS), agent.name).toContain(service!.command![2]);
    }
  });

  it('runs nginx with the repository config, balancing both replicas', () => {
    const nginx = services.nginx!;
    const [host, inside] = nginx.volumes![0]!.split(':');
    expect(inside).toBe('/etc/nginx/nginx.conf');
    const conf = readFileSync(join(REPO_ROOT, host!), 'utf8');
    const upstreams = [...conf.matchAll(/^\s*server ([\w-]+):(\d+)/gm)].map((m) => [m[1], m[2]]);
    expect(upstreams).toEqual(gateways.map(([name]) => [name, '8080']));
    expect(conf).toMatch(/proxy_buffering off;/); // SSE streams pass through as they come
    expect(conf).toMatch(/listen 8080;/);
  });

  it('regression "every client behind the shipped nginx is one principal": nginx writes X-Forwarded-For and the gateways believe only it', () => {
    const conf = readFileSync(join(REPO_ROOT, 'deploy/nginx.conf'), 'utf8');
    // Overwritten with the address nginx saw: a client's own X-Forwarded-For never reaches a gateway.
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    const cfg = loadConfigFile(join(REPO_ROOT, 'deploy/gateway.yaml'), { adapters: builtinAdapters, env: { REDIS_URL: 'redis://redis:6379' } }).config;
    const clientOf = clientAddressResolver(cfg.server.trustedProxies, cfg.server.ipv6ClientPrefix);
    // nginx on the compose network (Docker hands out private ranges) names two clients: two principals.
    for (const nginx of ['172.18.0.7', '192.168.16.3', '10.0.3.2']) {
      expect(clientOf(nginx, '203.0.113.9')).toBe('203.0.113.9');
      expect(clientOf(nginx, '198.51.100.4')).toBe('198.51.100.4');
    }
    // Anyone else's header is not believed.
    expect(clientOf('203.0.113.50', '198.51.100.4')).toBe('203.0.113.50');
  });

  it('is a valid compose file for docker compose (when the compose plugin is installed)', () => {
    const probe = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      // Stated reason: `docker compose config` needs only the client, but this machine's docker client
      // has no compose plugin; the structural checks above still ran.
      console.warn('docker compose config not run: the docker client here has no compose plugin');
      expect(existsSync(join(REPO_ROOT, 'docker-compose.yml'))).toBe(true);
      return;
    }
    execFileSync('docker', ['compose', '-f', 'docker-compose.yml', 'config', '--quiet'], { cwd: REPO_ROOT, stdio: 'pipe' });
  });
});
