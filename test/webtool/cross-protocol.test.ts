/**
 * Webtools both ways through the real gateway: an NLWeb client asks a webtool agent through /ask,
 * a webtool client calls `ask` on the catalog agent, and webtool actions are the agent's tools
 * (what the MCP binding publishes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { catalogAdapter } from '../../adapters/catalog/index.ts';
import { webtoolAdapter } from '../../adapters/webtool/index.ts';
import type { AdapterFactory } from '../../src/core/agent.ts';
import { AnswerResponseSchema } from '../../src/protocol/nlweb/index.ts';
import { parseSseText } from '../support/http.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startKitchen, type KitchenUpstream } from './kitchen-upstream.ts';

const adapters = [...builtinAdapters, catalogAdapter, webtoolAdapter].filter((a, i, all) => all.findIndex((b) => b.kind === a.kind) === i) as AdapterFactory<any>[];

let gw: TestGateway;
let kitchen: KitchenUpstream;
beforeAll(async () => {
  kitchen = await startKitchen();
  gw = await startGateway(
    {
      agents: [
        { name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' },
        { name: 'kitchen', kind: 'webtool', url: kitchen.webtoolUrl, ask: { action: 'convert_text', request: { text: '{{query.text}}', to: '{{query.unit}}' } } },
      ],
    },
    { adapters },
  );
});
afterAll(async () => {
  await gw?.close();
  await kitchen?.close();
});

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('webtools both ways', () => {
  it('an NLWeb client asks a webtool agent through /ask and gets a v0.55 answer', async () => {
    const res = await postJson(`${gw.url}/agents/kitchen/ask`, { query: { text: '3 tbsp', unit: 'ml' } });
    expect(res.status).toBe(200);
    const body = AnswerResponseSchema.parse(await res.json());
    expect(body.results).toEqual([{ '@type': 'QuantitativeValue', name: '3 tbsp = 44.36 ml', value: 44.36, unitText: 'ml', actions: expect.any(Array) }]);
    // NLWeb 5: the webtool's actions ride on the result, pointing back at this gateway.
    expect(body.results[0]!.actions).toContainEqual(expect.objectContaining({ protocol: 'HTTP', endpoint: `${gw.url}/webtools/kitchen`, name: 'convert' }));
    expect(kitchen.posts.at(-1)).toMatchObject({ action: 'convert_text', version: '1.1.0', request: { text: '3 tbsp', to: 'ml' } });
  });

  it('an NLWeb streaming client gets the webtool answer as named SSE events', async () => {
    const res = await postJson(`${gw.url}/agents/kitchen/ask`, { query: { text: '350 F in C' }, prefer: { streaming: true } });
    const events = parseSseText(await res.text());
    expect(events.map((e) => e.event)).toEqual(['start', 'result', 'complete']);
    expect((events[1]!.data as any).item).toMatchObject({ name: '350 °F = 176.67 °C' });
  });

  it('a webtool client calls ask on the catalog agent and gets recipes in data', async () => {
    const res = await postJson(`${gw.url}/webtools/recipes`, { sessionId: 'x1-cross-protocol-session', action: 'ask', request: { query: { text: 'spaghetti garlic' } } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.status).toBe('ok');
    const answer = AnswerResponseSchema.parse(body.data);
    expect(answer.results.length).toBeGreaterThan(0);
    expect(answer.results.some((r) => /spaghetti/i.test(r.name ?? ''))).toBe(true);
  });

  it('webtool actions are the agent’s structured tools (what MCP clients and NLWeb actions see)', async () => {
    const tools = await gw.gateway.listTools('kitchen');
    expect(tools.map((t) => t.toolName)).toEqual(['convert', 'convert_text', 'scale']);
    expect(tools.every((t) => t.name.startsWith('kitchen__'))).toBe(true);
    const r = await gw.gateway.callTool('kitchen', 'scale', { ingredients: [{ name: 'flour', amount: 200, unit: 'g' }], from_servings: 2, to_servings: 3 });
    expect(r.structured).toEqual({ factor: 1.5, servings: 3, ingredients: [{ name: 'flour', amount: 300, unit: 'g' }] });
  });

  it('republishes an upstream action with an array responseSchema unchanged (regression: it was lost)', async () => {
    const metadata = (await (await fetch(`${gw.url}/webtools/kitchen`)).json()) as { actions: Array<{ name: string; responseSchema: { type?: string } }> };
    expect(metadata.actions.find((a) => a.name === 'convert_text')!.responseSchema.type).toBe('array');
  });
});
