import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { launchBrowser } from '../support/browser.ts';
import { REPO_ROOT, startGateway, type TestGateway } from '../support/gateway.ts';
import { scriptedAdapter, scriptedCalls } from '../support/scripted-agent.ts';
import { startNlipTestAgent, type NlipTestAgent } from '../nlip/nlip-test-agent.ts';

/**
 * The console in a real browser (Debian's Chromium through playwright-core): the page speaks each
 * protocol to the gateway's real endpoints, and the test reads what a person would see.
 * UPDATE_SCREENSHOTS=1 refreshes docs/images/console-*.png.
 */
let gw: TestGateway;
let browser: Browser;
let upstream: NlipTestAgent;
const cspViolations: string[] = [];
const SHOTS = join(REPO_ROOT, 'docs', 'images');

beforeAll(async () => {
  upstream = await startNlipTestAgent();
  gw = await startGateway(
    {
      // With an auth section, a presented key must be a configured one (the edge verifies it).
      auth: { apiKeys: [{ principal: 'console-user', key: 'console-test-key-0123456789' }] },
      agents: [
        { name: 'recipes', kind: 'catalog', description: 'Bundled recipes', file: 'examples/catalog/recipes.jsonl' },
        { name: 'nlipper', kind: 'nlip', description: 'An NLIP agent', url: upstream.url, headers: { Authorization: 'Bearer upstream-secret' } },
        { name: 'slow', kind: 'scripted', description: 'A slow scripted agent', promiseAfterMs: 300 },
        { name: 'locked', kind: 'scripted', description: 'Needs credentials', requireAuth: true },
      ],
    },
    { adapters: [...builtinAdapters, scriptedAdapter] },
  );
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await upstream?.close();
});

async function openConsole(width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  await page.goto(`${gw.url}/console`);
  await page.locator('.agent-pick').first().waitFor();
  return page;
}

/** Picks agent and protocol, types the question and presses Enter (the keyboard path). */
async function ask(page: Page, agent: string, protocol: string, text: string): Promise<void> {
  await page.getByLabel('Agent', { exact: true }).selectOption(agent);
  await page.getByLabel('Protocol').selectOption(protocol);
  const input = page.getByLabel('Question', { exact: true });
  await input.fill(text);
  await input.press('Enter');
}

const turn = (page: Page, n: number) => page.locator('.turn').nth(n);
const waitStatus = (page: Page, n: number, status: string) => turn(page, n).locator('.turn-status', { hasText: status }).waitFor({ timeout: 15_000 });

async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `console-${name}.png`), fullPage: true });
}

describe('console in a browser', () => {
  it('is served with a strict CSP and lists every agent with its endpoints', async () => {
    const res = await fetch(`${gw.url}/console`);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).not.toMatch(/<script>(?!<)/);
    const page = await openConsole();
    const recipes = page.locator('.agent', { hasText: 'recipes' });
    await expect(recipes.textContent()).resolves.toContain('catalog');
    await recipes.getByText('Endpoints').click();
    await expect(recipes.locator('.endpoints').textContent()).resolves.toContain(`${gw.url}/agents/recipes/nlip/`);
    await expect(page.locator('.agent', { hasText: 'nlipper' }).textContent()).resolves.toContain('nlip');
    await screenshot(page, 'agents');
    await page.close();
  });

  for (const protocol of ['nlweb-json', 'nlweb-sse', 'nlip', 'mcp', 'webtool', 'nlweb-legacy']) {
    it(`asks the catalog over ${protocol} and shows recipe cards`, async () => {
      const page = await openConsole();
      await ask(page, 'recipes', protocol, 'pasta');
      await waitStatus(page, 0, 'Answered');
      const cards = turn(page, 0).locator('.card');
      expect(await cards.count()).toBeGreaterThan(0);
      await expect(cards.first().locator('.card-type').textContent()).resolves.toBe('Recipe');
      await expect(turn(page, 0).locator('.summary').textContent()).resolves.toMatch(/pasta/i);
      // the client wire shows the request the browser sent, and the catalog has no upstream wire
      const clientWire = await turn(page, 0).locator('.wire-client').textContent();
      expect(clientWire).toContain('pasta');
      expect(clientWire).toContain('HTTP 200');
      await expect(turn(page, 0).locator('.wire-upstream').textContent()).resolves.toContain('no upstream wire (in-process agent)'.replace('no', 'No'));
      if (protocol === 'nlweb-sse') await screenshot(page, 'answer');
      await page.close();
    });
  }

  it('a follow-up question carries the conversation (NLWeb session_context, NLIP token)', async () => {
    const page = await openConsole();
    await ask(page, 'recipes', 'nlweb-json', 'curry');
    await waitStatus(page, 0, 'Answered');
    await page.getByLabel('Question', { exact: true }).fill('vegan?');
    await page.getByRole('button', { name: 'Ask follow-up' }).click();
    await waitStatus(page, 1, 'Answered');
    const request = await turn(page, 1).locator('.wire-client pre').first().textContent();
    expect(request).toContain('conversation_id');
    await expect(turn(page, 1).locator('.card-name').first().textContent()).resolves.toBe('15-Minute Chickpea and Spinach Curry');

    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await page.locator('.turn').count()).toBe(0);
    await ask(page, 'recipes', 'nlip', 'curry');
    await waitStatus(page, 0, 'Answered');
    await ask(page, 'recipes', 'nlip', 'vegan?');
    await waitStatus(page, 1, 'Answered');
    await expect(turn(page, 1).locator('.wire-client pre').first().textContent()).resolves.toContain('"subformat": "conversation"');
    await expect(turn(page, 1).locator('.card-name').first().textContent()).resolves.toBe('15-Minute Chickpea and Spinach Curry');
    await page.close();
  });

  it('shows a slow agent’s promise with progress, and Cancel stops it', async () => {
    const page = await openConsole();
    await ask(page, 'slow', 'nlweb-json', 'slow:20000 progress');
    await waitStatus(page, 0, 'Working (promise)');
    await expect(turn(page, 0).locator('.promise').textContent()).resolves.toContain('Promise');
    await turn(page, 0).locator('.promise progress[value]').waitFor({ timeout: 30_000 });
    await screenshot(page, 'promise');
    await turn(page, 0).getByRole('button', { name: 'Cancel' }).click();
    await waitStatus(page, 0, 'Cancelled');
    await expect(turn(page, 0).locator('.failure').textContent()).resolves.toContain('CANCELLED');
    expect(await turn(page, 0).locator('.wire-client').textContent()).toContain('"action": "cancel"');
    const call = scriptedCalls.find((c) => c.request.query.text === 'slow:20000 progress');
    await expect.poll(() => call?.aborted, { timeout: 10_000 }).toBe(true);
    await page.close();
  }, 60_000);

  for (const protocol of ['nlip', 'mcp', 'webtool']) {
    it(`shows the promise and cancels it over ${protocol}`, async () => {
      const page = await openConsole();
      const text = `slow:30000 cancel over ${protocol}`;
      await ask(page, 'slow', protocol, text);
      await waitStatus(page, 0, 'Working (promise)');
      await turn(page, 0).getByRole('button', { name: 'Cancel' }).click();
      await waitStatus(page, 0, 'Cancelled');
      // the webtool binding reports the cancel as its own error (INTERNAL_ERROR "The promise was cancelled")
      await expect(turn(page, 0).locator('.failure').textContent()).resolves.toMatch(/CANCELLED|cancelled/);
      const call = scriptedCalls.find((c) => c.request.query.text === text);
      await expect.poll(() => call?.aborted, { timeout: 10_000 }).toBe(true);
      await page.close();
    }, 60_000);
  }

  it('turns an elicitation into a form whose answers continue the call', async () => {
    const page = await openConsole();
    await ask(page, 'slow', 'nlweb-json', 'elicit me a dinner');
    await waitStatus(page, 0, 'The agent asks a question');
    const form = page.getByRole('form', { name: 'The agent asks' });
    await form.getByLabel('cream').check();
    await screenshot(page, 'elicitation');
    await form.getByRole('button', { name: 'Answer' }).click();
    await turn(page, 1).waitFor();
    await expect.poll(() => scriptedCalls.at(-1)?.request.context?.answers, { timeout: 10_000 }).toEqual({ sauce: 'cream' });
    expect(scriptedCalls.at(-1)?.request.query.text).toContain('Sauce? cream');
    await page.close();
  });

  it('shows a failure with its code and message', async () => {
    const page = await openConsole();
    await ask(page, 'slow', 'nlweb-sse', 'fail please');
    await waitStatus(page, 0, 'Failed');
    await expect(turn(page, 0).locator('.failure').textContent()).resolves.toContain('NO_RESULTS');
    await expect(turn(page, 0).locator('.failure').textContent()).resolves.toContain('nothing matched');
    await page.close();
  });

  it('shows the upstream exchange of an NLIP agent, secrets redacted', async () => {
    const page = await openConsole();
    await ask(page, 'nlipper', 'nlweb-json', 'hello upstream');
    await waitStatus(page, 0, 'Answered');
    const up = turn(page, 0).locator('.wire-upstream');
    await up.locator('.exchange').first().waitFor({ timeout: 10_000 });
    const text = (await up.textContent()) ?? '';
    expect(text).toContain(upstream.url);
    expect(text).toContain('"content": "hello upstream"');
    expect(text).toContain('first answer to hello upstream');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('upstream-secret');
    await screenshot(page, 'wires');
    await page.close();
  });

  it('asks for an API key when the gateway wants one, sends it as Bearer and keeps it only in sessionStorage', async () => {
    const page = await openConsole();
    await ask(page, 'locked', 'nlweb-json', 'count:1 locked door');
    await waitStatus(page, 0, 'Failed');
    const key = page.getByLabel(/API key/);
    await key.fill('console-test-key-0123456789');
    await ask(page, 'locked', 'nlweb-json', 'count:1 with a key');
    await waitStatus(page, 1, 'Answered');
    expect(await turn(page, 1).locator('.wire-client pre').first().textContent()).toContain('Authorization: Bearer [hidden]');
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain('console-test-key-0123456789');
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain('console-test-key');
    await page.close();
  });

  it('is readable on a phone', async () => {
    const page = await openConsole(390);
    await ask(page, 'recipes', 'nlweb-sse', 'banana bread');
    await waitStatus(page, 0, 'Answered');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'phone');
    await page.close();
  });

  it('met no Content-Security-Policy violation', () => {
    expect(cspViolations).toEqual([]);
  });
});
