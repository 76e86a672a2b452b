import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { REPO_ROOT, startGateway, type TestGateway } from '../support/gateway.ts';
import { listenRaw, type TestServer } from '../support/http.ts';

/**
 * Issue 17, done when: the official NLWeb browser client (`@nlweb-ai/search-components` 0.1.10,
 * ChatSearch + useNlWeb), served from its own origin and pointed at the gateway's `POST /ask`
 * (CORS enabled for that origin), renders result cards and the summary for "curry" with site "all",
 * results under the decontextualised label for the follow-up "vegan?", a second page, and stays
 * usable after an upstream failure. Real Chromium, real HTTP, the package's own code.
 */
let dir: string;
let page: Page;
let browser: Browser;
let site: TestServer;
let gateway: TestGateway;
let gatewayUrl = '';

const CARDS = 'a[target="_blank"] h3';
const cardNames = () => page.locator(CARDS).allInnerTexts();

/** Types into one of the client's Lexical search boxes and submits with Enter. */
async function search(placeholder: string, text: string): Promise<void> {
  const box = page.locator(`[contenteditable="true"][aria-placeholder="${placeholder}"]`).last();
  await box.click();
  await page.keyboard.press('ControlOrMeta+A'); // the dialog's box still holds the previous root query
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nlgate-client-page-'));
  await build({
    entryPoints: [join(REPO_ROOT, 'test/nlweb/client-page/app.jsx')],
    bundle: true,
    format: 'iife',
    jsx: 'automatic',
    outfile: join(dir, 'app.js'),
    define: { 'process.env.NODE_ENV': '"production"' },
    nodePaths: [join(REPO_ROOT, 'node_modules')],
    logLevel: 'silent',
  });
  const script = readFileSync(join(dir, 'app.js'));
  site = await listenRaw((req, res) => {
    if (req.url === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    const settings = JSON.stringify({ endpoint: `${gatewayUrl}/ask`, site: 'all' });
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><html><body><div id="root"></div><script>window.NLGATE=${settings}</script><script src="/app.js"></script></body></html>`);
  });
  gateway = await startGateway({
    server: { corsOrigins: [site.url] },
    agents: [
      { name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' },
      // An upstream that is down: nothing listens on port 1.
      { name: 'broken', kind: 'nlweb', url: 'http://127.0.0.1:1', timeoutMs: 5000 },
    ],
  });
  gatewayUrl = gateway.url;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(site.url);
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the official NLWeb v0.54 browser client against the gateway (Chromium)', () => {
  it('shows at least three result cards and the summary for "curry" (site "all")', async () => {
    await search('Ask anything...', 'curry');
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 3, CARDS);
    await page.getByText(/^Found 3 recipes for "curry"/).waitFor();
    expect(await cardNames()).toContain('15-Minute Chickpea and Spinach Curry');
    expect(await page.getByText('No results found').count()).toBe(0);
  });

  it('answers the follow-up "vegan?" under its decontextualised label', async () => {
    const before = (await cardNames()).length;
    await search('Enter a follow up query', 'vegan?');
    await page.getByText('Searching for: vegan curry').waitFor();
    await page.waitForFunction(([sel, n]) => document.querySelectorAll(sel as string).length >= (n as number) + 9, [CARDS, before] as const);
    expect(await page.getByText('No results found').count()).toBe(0);
  });

  it('loads a second page of the follow-up', async () => {
    const firstPage = await cardNames();
    await page.getByRole('button', { name: '2', exact: true }).last().click();
    await page.waitForFunction(
      ([sel, seen]) => Array.from(document.querySelectorAll(sel as string)).some((h) => !(seen as string[]).includes(h.textContent ?? '')),
      [CARDS, firstPage] as const,
    );
    const secondPage = await cardNames();
    expect(secondPage.filter((n) => !firstPage.includes(n)).length).toBeGreaterThan(0);
  });

  it('stays usable after an upstream failure', async () => {
    await page.evaluate(() => (window as unknown as { nlgateSetSite: (s: string) => void }).nlgateSetSite('broken'));
    const answered = page.waitForResponse((r) => r.url().endsWith('/ask') && (r.request().postData() ?? '').includes('"site":"broken"'));
    await search('Ask anything...', 'pasta');
    const failure = await (await answered).text();
    expect(failure).toMatch(/^data: \{"_meta":\{"response_type":"Failure".*"error":\{"code":"[A-Z_]+"/m);
    await page.getByText('No results found').waitFor();
    await page.evaluate(() => (window as unknown as { nlgateSetSite: (s: string) => void }).nlgateSetSite('all'));
    await search('Ask anything...', 'brownies');
    await page.waitForFunction((sel) => Array.from(document.querySelectorAll(sel)).some((h) => h.textContent === 'Fudgy Cocoa Brownies'), CARDS);
  });
});
