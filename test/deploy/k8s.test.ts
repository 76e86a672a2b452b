import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { loadConfigFile } from '../../src/config/load.ts';
import { REPO_ROOT, startGateway, type TestGateway } from '../support/gateway.ts';

// No cluster here: the manifests are parsed and checked against the fields that matter, and the
// probe paths against the real app.
const dir = join(REPO_ROOT, 'deploy/k8s');
const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as {
  resources: string[];
  configMapGenerator: Array<{ name: string; files: string[] }>;
};
type Obj = { kind: string; metadata: { name: string }; spec: any };
const objects: Obj[] = kustomization.resources.flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as Obj));
const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
const deployment = byKind('Deployment').find((d) => d.metadata.name === 'recipes-agent')!;
const pod = deployment.spec.template.spec;
const container = (name: string) => pod.containers.find((c: { name: string }) => c.name === name);
const envOf = (c: { env: Array<{ name: string; value: string }> }) => Object.fromEntries(c.env.map((e) => [e.name, e.value]));

describe('Kubernetes manifests (deploy/k8s)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ agents: [{ name: 'r', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }] });
  });
  afterAll(async () => gw?.close());

  it('runs the gateway as a sidecar next to the agent, in the same pod, with the compiled image', () => {
    expect(pod.containers.map((c: { name: string }) => c.name)).toEqual(['agent', 'nlgate']);
    expect(container('nlgate').args).toEqual(['node', 'dist/cli.js', 'serve']);
    expect(container('agent').image).toBe(container('nlgate').image);
    expect(envOf(container('agent')).HOST).toBe('127.0.0.1'); // the agent is reachable only through the gateway
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
  });

  it('probes liveness on /healthz and readiness on /readyz, and both paths answer in the app', async () => {
    const nlgate = container('nlgate');
    expect(nlgate.livenessProbe.httpGet.path).toBe('/healthz');
    expect(nlgate.startupProbe.httpGet.path).toBe('/healthz');
    expect(nlgate.readinessProbe.httpGet.path).toBe('/readyz');
    const port = nlgate.ports.find((p: { name: string }) => p.name === nlgate.livenessProbe.httpGet.port);
    expect(port.containerPort).toBe(Number(envOf(nlgate).PORT));
    for (const probe of [nlgate.livenessProbe, nlgate.readinessProbe]) {
      const res = await gw.app.request(probe.httpGet.path);
      expect(res.status, probe.httpGet.path).toBe(200);
    }
  });

  it('sets resources, a non-root user and a read-only root filesystem on every container', () => {
    for (const d of byKind('Deployment')) {
      const spec = d.spec.template.spec;
      expect(spec.securityContext.runAsNonRoot, d.metadata.name).toBe(true);
      for (const c of spec.containers) {
        expect(c.resources.requests.cpu, c.name).toBeTruthy();
        expect(c.resources.requests.memory, c.name).toBeTruthy();
        expect(c.resources.limits.memory, c.name).toBeTruthy();
        expect(c.securityContext.readOnlyRootFilesystem, c.name).toBe(true);
        expect(c.securityContext.allowPrivilegeEscalation, c.name).toBe(false);
      }
    }
    // The image's `node` user is uid 1000.
    expect(pod.securityContext.runAsUser).toBe(1000);
  });

  it('has a PodDisruptionBudget and a Service whose selectors match the pods', () => {
    const labels = deployment.spec.template.metadata.labels;
    const [pdb] = byKind('PodDisruptionBudget');
    expect(pdb!.spec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(pdb!.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    expect(labels).toMatchObject(pdb!.spec.selector.matchLabels);
    expect(labels).toMatchObject(deployment.spec.selector.matchLabels);
    const service = byKind('Service').find((s) => s.metadata.name === 'recipes-agent')!;
    expect(labels).toMatchObject(service.spec.selector);
  });

  it('points the gateway at the Redis Service, with WORKERS=auto and a config that validates', () => {
    const env = envOf(container('nlgate'));
    expect(env.WORKERS).toBe('auto');
    const redisService = byKind('Service').find((s) => s.metadata.name === new URL(env.REDIS_URL!).hostname)!;
    expect(redisService.spec.ports[0].port).toBe(Number(new URL(env.REDIS_URL!).port));
    const redis = byKind('Deployment').find((d) => d.metadata.name === 'nlgate-redis')!;
    expect(redis.spec.template.metadata.labels).toMatchObject(redisService.spec.selector);
    // The ConfigMap generated from gateway-sidecar.yaml is mounted where NLGATE_CONFIG points.
    const generator = kustomization.configMapGenerator[0]!;
    const [key, file] = generator.files[0]!.split('=') as [string, string];
    const volume = pod.volumes.find((v: { configMap?: { name: string } }) => v.configMap?.name === generator.name);
    const mount = container('nlgate').volumeMounts.find((m: { name: string }) => m.name === volume.name);
    expect(`${mount.mountPath}/${key}`).toBe(env.NLGATE_CONFIG);
    const cfg = loadConfigFile(join(dir, file), { adapters: builtinAdapters, env }).config;
    expect(cfg.store).toMatchObject({ kind: 'redis', url: env.REDIS_URL });
    // The agent it fronts is the other container of the pod, on loopback.
    const agentEnv = envOf(container('agent'));
    expect(cfg.agents[0]!.url).toBe(`http://127.0.0.1:${agentEnv.PORT}`);
  });

  it('gives the pod more time to stop than the gateway needs to drain', () => {
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
  });
});
