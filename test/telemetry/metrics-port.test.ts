/** `server.metricsPort`: /metrics moves to its own listener (a scrape network apart from clients). */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { REPO_ROOT } from '../support/gateway.ts';

let running: RunningServer;
beforeAll(async () => {
  const loaded = parseConfig(
    { server: { metricsPort: 0 }, agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }] },
    { adapters: builtinAdapters, baseDir: REPO_ROOT, source: 'test config' },
  );
  running = await startServer(loaded, silentLogger, { PORT: '0', HOST: '127.0.0.1' });
});
afterAll(async () => {
  await running?.stop();
});

it('serves /metrics on metricsPort only, with the traffic of the main port', async () => {
  expect(running.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(running.metricsUrl).not.toBe(running.url);
  expect((await fetch(`${running.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":{"text":"pasta"}}' })).status).toBe(200);
  expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
  const scraped = await (await fetch(`${running.metricsUrl}/metrics`)).text();
  expect(scraped).toMatch(/nlgate_requests_total\{protocol="nlweb",route="\/ask",agent="recipes",outcome="success",status="200"\} 1/);
});

it('answers readiness until shutdown starts, then 503 while liveness stays 200', async () => {
  expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
  running.setDraining();
  const ready = await fetch(`${running.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toMatchObject({ status: 'draining' });
  expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
});
