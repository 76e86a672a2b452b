/**
 * nlgate as a library under a mount path (issue 28): a Hono sub-app, a fetch handler with
 * `basePath`, and every link the gateway publishes (webtool URLs, A2A cards, NLIP upload URLs,
 * the console page) carrying the mount path.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createNlgate, functionAgent, type Nlgate } from '../../src/index.ts';
import { silentLogger } from '../../src/base/logger.ts';

const faq = functionAgent({
  name: 'faq',
  description: 'Answers from our FAQ',
  ask: async ({ query }) => [{ '@type': 'Question', name: `About ${query}`, url: 'https://example.org/faq#1' }],
});
const ask = (text: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text } }) });

describe('mounted as a Hono sub-app', () => {
  let gw: Nlgate;
  const host = new Hono();
  beforeAll(async () => {
    gw = await createNlgate({ agents: [faq], store: { kind: 'memory' } }, { logger: silentLogger });
    host.get('/', (c) => c.text('the host app'));
    host.route('/gateway', gw.app);
  });
  afterAll(() => gw.close());

  it('answers NLWeb /ask under the mount and leaves the host routes alone', async () => {
    const res = await host.request('/gateway/ask', ask('returns'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<{ name: string }> };
    expect(body.results.map((r) => r.name)).toEqual(['About returns']);
    expect(await (await host.request('/')).text()).toBe('the host app');
  });

  it('publishes webtool URLs, A2A cards and NLIP upload URLs under the mount', async () => {
    const tools = await (await host.request('http://shop.test/gateway/webtools')).text();
    expect(tools).toContain('http://shop.test/gateway/webtools/faq');
    expect(tools).not.toMatch(/http:\/\/shop\.test\/webtools/);
    const card = (await (await host.request('http://shop.test/gateway/a2a/faq/.well-known/agent-card.json')).json()) as { url?: string; supportedInterfaces?: Array<{ url: string }> };
    const urls = [card.url, ...(card.supportedInterfaces ?? []).map((i) => i.url)].filter(Boolean);
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u).toMatch(/^http:\/\/shop\.test\/gateway\/a2a\/faq/);
    const nlip = await host.request('http://shop.test/gateway/nlip/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messagetype: 'control', format: 'text', subformat: 'English', content: 'where do I upload a large file?' }),
    });
    expect(await nlip.text()).toContain('http://shop.test/gateway/nlip/upload/');
    const form = new FormData();
    form.append('contents', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    const uploaded = await (await host.request('http://shop.test/gateway/nlip/upload/', { method: 'POST', body: form })).text();
    expect(uploaded).toContain('http://shop.test/gateway/nlip/upload/');
  });

  it('serves the console with its assets and API under the mount', async () => {
    const page = await (await host.request('/gateway/console/')).text();
    expect(page).toContain('<meta name="nlgate-base" content="/gateway">');
    expect(page).toContain('src="/gateway/console/assets/app.js"');
    const agents = (await (await host.request('http://shop.test/gateway/console/api/agents')).json()) as { agents: unknown[] };
    expect(JSON.stringify(agents)).toContain('http://shop.test/gateway/');
  });

  it('takes the mount from a route with parameters', async () => {
    const tenants = new Hono().route('/t/:tenant/gw', gw.app);
    const tools = await (await tenants.request('http://shop.test/t/acme/gw/webtools')).text();
    expect(tools).toContain('http://shop.test/t/acme/gw/webtools/faq');
  });
});

describe('as a fetch handler with basePath', () => {
  let gw: Nlgate;
  beforeAll(async () => {
    gw = await createNlgate({ agents: [faq] }, { logger: silentLogger, basePath: '/gateway/' });
  });
  afterAll(() => gw.close());

  it('answers under basePath and refuses paths outside it with an NLWeb failure', async () => {
    const res = await gw.fetch(new Request('http://x.test/gateway/ask', ask('hours')));
    expect(((await res.json()) as { results: Array<{ name: string }> }).results[0]?.name).toBe('About hours');
    const outside = await gw.fetch(new Request('http://x.test/ask', ask('hours')));
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { _meta: { response_type: string } })._meta.response_type).toBe('failure');
    const lookalike = await gw.fetch(new Request('http://x.test/gatewayx/ask', ask('hours')));
    expect(lookalike.status).toBe(404);
  });
});

describe('config', () => {
  it('is validated by the YAML schemas, with the same ConfigError', async () => {
    await expect(createNlgate({ agents: [{ name: 'x', kind: 'nope' }] })).rejects.toThrow(ConfigError);
    await expect(createNlgate({ agents: [{ name: 'bad name!', kind: 'function', ask: () => [] }] })).rejects.toThrow(/agents\.0\.name/);
    await expect(createNlgate({ agents: [{ name: 'f', kind: 'function', ask: 'not a function' }] })).rejects.toThrow(/agents\.0\.ask: must be a function/);
  });

  it('refuses a basePath that is not a plain path', async () => {
    await expect(createNlgate({ agents: [faq] }, { basePath: 'gateway', logger: silentLogger })).rejects.toThrow(/basePath/);
  });
});
