/**
 * The public MCP conformance suites' server scenarios that hold for any tool list (initialize,
 * tools/list, DNS-rebinding protection; for 2026-07-28 tools/list and header validation) against a
 * gateway whose only agent is an OpenAPI API: the tools generated from an OpenAPI description are
 * valid MCP tools. (The suite's other scenarios
 * call the tools of its own fixture server; test/mcp/conformance.test.ts runs those.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNS, runSuite } from '../mcp/conformance.ts';
import { REPO_ROOT, startGateway, type TestGateway } from '../support/gateway.ts';
import { SHOP_KEY, SHOP_TOKEN, startShopApi, type ShopApi } from './shop-api.ts';

/** Per run of test/mcp/conformance.ts: the stable suite (2025 revisions), the prerelease for 2026-07-28. */
const SCENARIOS: Array<[run: string, scenario: string]> = [
  ['stable-active', 'server-initialize'],
  ['stable-active', 'tools-list'],
  ['stable-active', 'dns-rebinding-protection'],
  ['next-2026', 'tools-list'],
  ['next-2026', 'http-header-validation'],
];

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
  it.each(SCENARIOS)('%s: %s passes', async (name, scenario) => {
    const found = RUNS.find((r) => r.name === name)!;
    // A requirement set fixes its scenarios; one scenario at a time runs by spec version instead.
    const run = found.args.includes('--requirements') ? { ...found, args: ['--spec-version', '2026-07-28'] } : found;
    const outcome = await runSuite(run, `${gw.url}/mcp`, ['--scenario', scenario], true);
    expect(outcome.failed, outcome.output.slice(-3000)).toBe(0);
    expect(outcome.passed, outcome.output.slice(-3000)).toBeGreaterThan(0);
    expect(outcome.code, outcome.output.slice(-3000)).toBe(0);
  }, 60_000);
});
