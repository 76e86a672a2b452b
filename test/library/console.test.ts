/**
 * The web console of a gateway mounted under /gateway in a host application (issue 28), in a real
 * browser (Debian's Chromium through playwright-core): the page, its assets and every call it makes
 * go under the mount path, and a person sees the function agent's answers on each protocol.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNlgate, functionAgent, type Nlgate } from '../../src/index.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { launchBrowser } from '../support/browser.ts';

let gw: Nlgate;
let server: ServerType;
let browser: Browser;
let origin = '';
const outsideMount: string[] = [];

beforeAll(async () => {
  gw = await createNlgate(
    {
      agents: [
        functionAgent({
          name: 'faq',
          description: 'Answers from our FAQ',
          ask: async ({ query }) => [{ '@type': 'Question', name: `About ${query}`, url: 'https://example.org/faq#1', description: 'From the FAQ' }],
        }),
      ],
    },
    { logger: silentLogger },
  );
  const host = new Hono();
  host.get('/', (c) => c.text('the host app'));
  host.route('/gateway', gw.app);
  // Anything the page asks for outside the mount would be the host's 404: recorded to fail the test.
  host.notFound((c) => (outsideMount.push(c.req.path), c.text('not the gateway', 404)));
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: host.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
  await gw?.close();
});

async function askInConsole(protocol: string, text: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${origin}/gateway/console`);
  await page.locator('.agent-pick').first().waitFor();
  await page.getByLabel('Agent', { exact: true }).selectOption('faq');
  await page.getByLabel('Protocol').selectOption(protocol);
  const input = page.getByLabel('Question', { exact: true });
  await input.fill(text);
  await input.press('Enter');
  await page.locator('.turn').first().locator('.turn-status', { hasText: 'Answered' }).waitFor({ timeout: 15_000 });
  return page;
}

describe('the console under /gateway', () => {
  it('lists the agent with endpoints under the mount', async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/gateway/console/`);
    const faq = page.locator('.agent', { hasText: 'faq' });
    await faq.getByText('Endpoints').click();
    await expect(faq.locator('.endpoints').textContent()).resolves.toContain(`${origin}/gateway/agents/faq/nlip/`);
    await page.close();
  });

  for (const protocol of ['nlweb-sse', 'nlip', 'mcp', 'webtool']) {
    it(`asks the function agent over ${protocol} and shows its card`, async () => {
      const page = await askInConsole(protocol, 'returns');
      await expect(page.locator('.turn').first().locator('.card-name').first().textContent()).resolves.toBe('About returns');
      await expect(page.locator('.turn').first().locator('.wire-client').textContent()).resolves.toContain('/gateway/');
      await page.close();
    });
  }

  it('asked for nothing outside the mount', () => {
    expect(outsideMount).toEqual([]);
  });
});
