/**
 * The public MCP conformance suite's server scenarios that hold for any tool list (initialize, ping,
 * tools/list, DNS-rebinding protection) against a gateway whose only agent is an OpenAPI API: the
 * tools generated from an OpenAPI description are valid MCP tools. (The suite's other scenarios
 * call the tools of its own fixture server; test/mcp/conformance.test.ts runs those.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNS, runSuite } from '../mcp/conformance.ts';
import { REPO_ROOT, startGateway, type TestGateway } from '../support/gateway.ts';
import { SHOP_KEY, SHOP_TOKEN, startShopApi, type ShopApi } from './shop-api.ts';

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let api: ShopApi;
let gw: TestGateway;
beforeAll(async () => {
  api = await startShopApi();
  gw = await startGateway(
    {
      server: { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] },
      agents: [{ name: 'shop', kind: 'openapi', spec: api.specUrl, auth: { bearer: SHOP_TOKEN, key: SHOP_KEY }, ask: { operation: 'searchProducts', query: 'q', results: '$.items' } }],
    },
    { baseDir: REPO_ROOT },
  );
  await gw.gateway.describeAgent('shop');
}, 30_000);
afterAll(async () => {
  await gw?.close();
  await api?.close();
});

describe('@modelcontextprotocol/conformance against an openapi agent', () => {
  const stable = RUNS.find((r) => r.name === 'stable-active')!;
  it.each(SCENARIOS)('%s passes', async (scenario) => {
    const outcome = await runSuite(stable, `${gw.url}/mcp`, ['--scenario', scenario], true);
    expect(outcome.failed, outcome.output.slice(-3000)).toBe(0);
    expect(outcome.passed, outcome.output.slice(-3000)).toBeGreaterThan(0);
    expect(outcome.code, outcome.output.slice(-3000)).toBe(0);
  }, 60_000);
});
