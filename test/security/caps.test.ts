/**
 * Issue 11, caps on what a caller can make the gateway keep: `limits.maxQueryChars` refuses a longer
 * query on every protocol before any work (nothing stored, no agent call), and the stored `prev`
 * (`limits.maxPrevItemChars`, `limits.maxPrevTotalChars`) keeps the upstream body from growing turn
 * after turn ("10 × 1 MB queries: the upstream body grows 1 → 11 MB").
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../../src/store/memory.ts';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { parseSseText } from '../support/http.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';
import { alice, McpSession, nlipMessage, postJson } from './owner-support.ts';

const MAX_QUERY = 100;

describe('maxQueryChars on every protocol', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ limits: { maxQueryChars: MAX_QUERY }, agents: [{ name: 'bot', kind: 'scripted' }] });
  });
  afterAll(() => gw?.close());

  const tooLong = 'count:1 ' + 'q'.repeat(MAX_QUERY);
  const says = (text: string) => expect(text).toContain(`the most this gateway accepts is ${MAX_QUERY}`);

  it('a longer query is refused with each protocol\'s own clear error, and the agent never sees it', async () => {
    const before = scriptedCalls.length;
    const nlweb = await postJson(alice, `${gw.url}/agents/bot/ask`, { query: { text: tooLong } });
    expect(nlweb.status).toBe(400);
    expect(nlweb.body.error.code).toBe('INVALID_QUERY');
    says(nlweb.body.error.message);
    const streamed = await postJson(alice, `${gw.url}/agents/bot/ask`, { query: { text: tooLong }, prefer: { streaming: true } });
    expect(streamed.status).toBe(400);
    const legacy = await alice(`${gw.url}/agents/bot/ask?query=${encodeURIComponent(tooLong)}`);
    expect(legacy.status).toBe(400);
    says(JSON.stringify(await legacy.json()));
    const nlip = await postJson(alice, `${gw.url}/agents/bot/nlip/`, nlipMessage(tooLong));
    expect(nlip.body.submessages).toContainEqual({ format: 'error', subformat: 'code', content: 'INVALID_QUERY' });
    says(nlip.body.content);
    const session = await McpSession.open(`${gw.url}/mcp`, alice);
    const mcp = (await session.call('ask', { query: { text: tooLong } })).message?.result;
    expect(mcp?.isError).toBe(true);
    says(mcp?.content[0].text);
    const webtool = await postJson(alice, `${gw.url}/webtools/bot`, { action: 'ask', request: { query: { text: tooLong } } });
    expect(webtool.status).toBe(400);
    expect(webtool.body.error.code).toBe('SCHEMA_ERROR');
    says(webtool.body.error.message);
    expect(scriptedCalls.length).toBe(before);
  });

  it('just below the cap is answered, just above it is refused and nothing is stored (property)', async () => {
    const store = gw.gateway.store as MemoryStore;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -20, max: 20 }), fc.boolean(), async (delta, streaming) => {
        const text = 'count:1 '.padEnd(MAX_QUERY + delta, 'z');
        const before = { calls: scriptedCalls.length, held: store.size() };
        const r = await alice(`${gw.url}/agents/bot/ask`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: { text }, prefer: { streaming } }),
        });
        const body = await r.text();
        if (delta <= 0) {
          expect(r.status).toBe(200);
          expect(scriptedCalls.length).toBe(before.calls + 1);
          if (streaming) expect(parseSseText(body).at(-1)?.event).toBe('complete');
        } else {
          expect(r.status).toBe(400);
          expect(scriptedCalls.length).toBe(before.calls);
          expect(store.size()).toBe(before.held);
        }
      }),
      { numRuns: 40 },
    );
  }, 90_000);
});

describe('stored prev cannot grow the upstream body', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startV055Agent>>;
  const MB = 1_000_000;
  beforeAll(async () => {
    upstream = await startV055Agent({ results: 1 });
    gw = await startGateway({
      server: { bodyLimitBytes: 2 * 1_048_576 },
      limits: { maxQueryChars: 2 * MB },
      agents: [{ name: 'big', kind: 'nlweb', url: upstream.url, streaming: false }],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  it('10 × 1 MB queries in one conversation: every upstream body stays near one query, prev stays within maxPrevTotalChars', async () => {
    const id = 'big-conversation-0123456789';
    const sizes: number[] = [];
    for (let turn = 0; turn < 10; turn++) {
      const before = upstream.received.length;
      const r = await postJson(alice, `${gw.url}/ask`, { query: { text: `${turn} `.padEnd(MB, 'm') }, meta: { session_context: { conversation_id: id } } });
      expect(r.status).toBe(200);
      const sent = upstream.received.slice(before).find((q) => q.path === '/ask')!;
      const body = sent.body as { context?: { prev?: string[] } };
      sizes.push(JSON.stringify(body).length);
      const prev = body.context?.prev ?? [];
      // Defaults: each kept query cut to 1,024 characters, 8,192 in total.
      expect(prev.every((p) => p.length <= 1024)).toBe(true);
      expect(prev.reduce((n, p) => n + p.length, 0)).toBeLessThanOrEqual(8192);
      if (turn > 0) expect(prev.at(-1)).toBe(`${turn - 1} `.padEnd(1024, 'm'));
    }
    expect(Math.max(...sizes)).toBeLessThan(MB + 8192 + 4096);
    expect(sizes.at(-1)! - sizes[0]!).toBeLessThanOrEqual(8192 + 1024);
  }, 60_000);
});
