import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startNlipTestAgent, type NlipTestAgent } from '../nlip/nlip-test-agent.ts';
import { startHttpFixture, type HttpFixture } from '../mcp/fixtures/http-server.ts';
import { connectClient } from '../mcp/support.ts';
import { startKitchen, type KitchenUpstream } from '../webtool/kitchen-upstream.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { a2aClient, asTask, data, dataParts, send, textParts, userMessage, TaskState } from './support.ts';
import { startUpstreamA2a } from './upstream-agent.ts';

/**
 * Issue 15, cross-protocol through one gateway: NLWeb, NLIP, MCP and webtool clients reach an A2A
 * agent (the SDK's own server), and the SDK's own A2A client reaches the catalog, an NLWeb agent, an
 * NLIP agent, an MCP server and a webtool.
 */
let a2a: Awaited<ReturnType<typeof startUpstreamA2a>>;
let nlweb: Awaited<ReturnType<typeof startV055Agent>>;
let nlip: NlipTestAgent;
let mcp: HttpFixture;
let kitchen: KitchenUpstream;
let gw: TestGateway;

beforeAll(async () => {
  [a2a, nlweb, nlip, mcp, kitchen] = await Promise.all([startUpstreamA2a(), startV055Agent(), startNlipTestAgent(), startHttpFixture(), startKitchen()]);
  gw = await startGateway({
    agents: [
      { name: 'dishes', kind: 'a2a', url: a2a.url },
      { name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' },
      { name: 'news', kind: 'nlweb', url: nlweb.url },
      { name: 'peer', kind: 'nlip', url: nlip.url },
      { name: 'pantry', kind: 'mcp', url: mcp.mcpUrl, ask: { tool: 'search', arguments: { query: '{{query.text}}' } } },
      { name: 'kitchen', kind: 'webtool', url: kitchen.webtoolUrl, ask: { action: 'convert_text', request: { text: '{{query.text}}', to: 'ml' } } },
    ],
  });
}, 30_000);
afterAll(async () => {
  await gw?.close();
  await Promise.all([a2a?.close(), nlweb?.close(), nlip?.close(), mcp?.close(), kitchen?.close()]);
});

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

describe('every client protocol reaches an A2A agent', () => {
  it('NLWeb: /ask answers with the A2A agent\'s items and summary', async () => {
    const res = await post('/agents/dishes/ask', { query: { text: 'pasta' } });
    expect(res.body.results.map((r: { name?: string }) => r.name)).toEqual(expect.arrayContaining(['Dish 1', 'Dish 2']));
  });

  it('NLIP: a text message gets the summary as text and the items as structured parts', async () => {
    const res = await post('/agents/dishes/nlip', { format: 'text', subformat: 'english', content: 'soup' });
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('Found 2 dishes for soup');
    expect(res.body.submessages.filter((s: { format: string }) => s.format === 'structured').map((s: { content: { name: string } }) => s.content.name)).toEqual(['Dish 1', 'Dish 2']);
  });

  it('MCP: the ask tool returns the A2A agent\'s answer as structured content', async () => {
    const client = await connectClient(`${gw.url}/agents/dishes/mcp`, '2026-07-28');
    try {
      const r = await client.callTool({ name: 'ask', arguments: { query: { text: 'curry' } } });
      expect((r.structuredContent as { results: Array<{ name?: string }> }).results.map((i) => i.name)).toEqual(expect.arrayContaining(['Dish 1', 'Dish 2']));
    } finally {
      await client.close();
    }
  });

  it('webtool: action ask returns the A2A agent\'s answer in data', async () => {
    const res = await post('/webtools/dishes', { sessionId: 'cross-protocol-session-1', action: 'ask', request: { query: { text: 'salad' } } });
    expect(res.body.status).toBe('ok');
    expect(res.body.data.results.map((r: { name?: string }) => r.name)).toEqual(expect.arrayContaining(['Dish 1', 'Dish 2']));
  });
});

describe('the SDK\'s A2A client reaches every kind of agent', () => {
  const ask = async (agent: string, question: string) => {
    const client = await a2aClient(`${gw.url}/a2a/${agent}/`);
    const task = asTask(await client.sendMessage(send(userMessage(question))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    return task;
  };

  it('the catalog', async () => {
    const task = await ask('recipes', 'spaghetti garlic');
    expect(dataParts(task).some((i) => /spaghetti/i.test((i as { name?: string }).name ?? ''))).toBe(true);
  });

  it('an NLWeb agent', async () => {
    const task = await ask('news', 'headlines');
    expect(dataParts(task).length).toBe(3);
  });

  it('an NLIP agent', async () => {
    const task = await ask('peer', 'hello peer');
    expect(textParts(task)[0]).toContain('hello peer');
    expect(dataParts(task).length).toBeGreaterThan(0);
  });

  it('an MCP server', async () => {
    const task = await ask('pantry', 'pumpkin');
    expect(dataParts(task).map((i) => (i as { name?: string }).name)).toEqual(['Pumpkin soup', 'Pumpkin pie']);
  });

  it('a webtool', async () => {
    const task = await ask('kitchen', '3 tbsp');
    expect(dataParts(task)[0]).toMatchObject({ name: '3 tbsp = 44.36 ml' });
  });

  it('a webtool action as a skill: listed on the card, called with metadata.skill and a data part', async () => {
    const card = await (await fetch(`${gw.url}/a2a/kitchen/.well-known/agent-card.json`)).json();
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(['ask', 'convert', 'scale']));
    const client = await a2aClient(`${gw.url}/a2a/kitchen/`, 'HTTP+JSON');
    const message = { ...userMessage([data({ amount: 2, from: 'cup', to: 'ml' })]), metadata: { skill: 'convert' } };
    const task = asTask(await client.sendMessage(send(message)));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataParts(task)[0]).toMatchObject({ '@type': 'QuantitativeValue', unitText: 'ml' });
    expect(kitchen.posts.at(-1)).toMatchObject({ action: 'convert', request: { amount: 2, from: 'cup', to: 'ml' } });
    const unknown = { ...userMessage('x'), metadata: { skill: 'no_such_skill' } };
    await expect(client.sendMessage(send(unknown))).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });

  it('an A2A agent behind the gateway (A2A in, A2A out)', async () => {
    const task = await ask('dishes', 'noodles');
    expect(dataParts(task).map((i) => (i as { name?: string }).name)).toEqual(['Dish 1', 'Dish 2']);
    expect(textParts(task)[0]).toBe('Found 2 dishes for noodles');
  });
});
