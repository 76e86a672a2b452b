import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogAdapter } from '../../adapters/catalog/index.ts';
import { builtinAdapters } from '../../adapters/index.ts';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { jsonOf, StrictNlipClient, type WireMessage } from './strict-client.ts';

/**
 * Round trips over real HTTP: a strict NLIP client (as strict as the reference client) holds
 * conversations through `POST /nlip/` with the default catalog agent and with an NLWeb v0.55 agent.
 */

let gw: TestGateway;
let nlweb: Awaited<ReturnType<typeof startV055Agent>>;

beforeAll(async () => {
  nlweb = await startV055Agent();
  gw = await startGateway(
    {
      agents: [
        // As in config/gateway.yaml.
        { name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' },
        { name: 'web', kind: 'nlweb', url: nlweb.url, streaming: false },
      ],
    },
    { adapters: [...builtinAdapters, catalogAdapter] },
  );
});
afterAll(async () => {
  await gw.close();
  await nlweb.close();
});

const names = (m: WireMessage) => jsonOf(m).map((j) => (j.value as { name?: string }).name);

describe('NLIP peer ↔ gateway ↔ catalog agent', () => {
  it('answers with a readable summary, the recipes as labelled json, and a conversation token', async () => {
    const client = new StrictNlipClient(`${gw.url}/nlip/`);
    const reply = await client.ask('quick pasta dinner');
    expect(reply.format).toBe('text');
    expect(reply.content).toMatch(/^Found \d+ recipes for "quick pasta dinner"/);
    const items = jsonOf(reply);
    expect(items.length).toBeGreaterThan(2);
    expect(items[0]).toMatchObject({ label: 'result-1', value: { '@type': 'Recipe', site: expect.any(String), score: expect.any(Number) } });
    expect(client.conversationToken).toMatch(/^nlipconv_/);
  });

  it('holds a multi-turn conversation: a one-word follow-up is read against the first question', async () => {
    const fresh = await new StrictNlipClient(`${gw.url}/nlip/`).ask('vegan?');
    const client = new StrictNlipClient(`${gw.url}/nlip/`);
    await client.ask('curry');
    const token = client.conversationToken;
    const followUp = await client.ask('vegan?');
    // The catalog borrows "curry" from context.prev only when the conversation reached it.
    expect(names(followUp)[0]).toMatch(/curry/i);
    expect(names(fresh)[0]).not.toMatch(/curry/i);
    expect(client.conversationToken).toBe(token);
    const third = await client.ask('spicy?');
    expect(third.submessages!.filter((s) => s.subformat === 'conversation')).toEqual([{ format: 'token', subformat: 'conversation', content: token }]);
  });

  it('echoes a token the client minted itself, exactly, next to the one it mints', async () => {
    const client = new StrictNlipClient(`${gw.url}/nlip/`);
    const mine = { format: 'token', subformat: 'conversation_client42', content: 'client-made-token-000000000001', label: 'client' };
    const reply = await client.ask('lentil soup', [mine]);
    expect(reply.submessages).toContainEqual(mine);
    expect(reply.submessages!.filter((s) => s.format === 'token' && s.subformat === 'conversation')).toHaveLength(1);
  });

  it('works per agent under /agents/recipes/nlip', async () => {
    const reply = await new StrictNlipClient(`${gw.url}/agents/recipes/nlip`).ask('banana bread');
    expect(names(reply).some((n) => /banana/i.test(n ?? ''))).toBe(true);
  });
});

describe('NLIP peer ↔ gateway ↔ NLWeb v0.55 agent', () => {
  it('two turns: the second question reaches the agent with context.prev and its own session_context', async () => {
    const client = new StrictNlipClient(`${gw.url}/agents/web/nlip/`);
    const first = await client.ask('pumpkin pie');
    expect(jsonOf(first).length).toBeGreaterThan(0);
    await client.ask('with less sugar');
    const asks = nlweb.received.filter((r) => r.path === '/ask');
    const second = asks.at(-1)!.body as { query: { text: string }; context?: { prev?: string[] }; meta?: { session_context?: Record<string, unknown> } };
    expect(second.query.text).toBe('with less sugar');
    expect(second.context?.prev).toEqual(['pumpkin pie']);
    expect(second.meta?.session_context).toMatchObject({ upstream_session: 1 });
  });
});
