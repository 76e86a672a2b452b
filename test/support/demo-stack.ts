/**
 * What the compose stack (docker-compose.yml, deploy/gateway.yaml) answers through its load
 * balancer: shared by the stack run as processes (test/deploy/stack.test.ts) and the real
 * containers (test/deploy/container.test.ts), so both check the same thing.
 */
import { expect } from 'vitest';

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Asks every demo agent through `lb` (nginx) on NLWeb, NLIP and webtools, and checks each answer. */
export async function expectEveryDemoAgentAnswers(lb: string): Promise<void> {
  expect((await fetch(`${lb}/readyz`)).status).toBe(200);
  const recipes = (await (await post(`${lb}/ask`, { query: { text: 'pasta' } })).json()) as { results: unknown[] };
  expect(recipes.results.length).toBeGreaterThan(0);
  const legacy = (await (await post(`${lb}/agents/legacy/ask`, { query: { text: 'pumpkin pie' } })).json()) as { results: Array<{ name: string }> };
  expect(legacy.results[0]!.name).toContain('pumpkin pie');
  const nlip = (await (await post(`${lb}/agents/nlipper/ask`, { query: { text: 'hello' } })).json()) as { _meta: { response_type: string } };
  expect(nlip._meta.response_type).toBe('answer');
  const kitchen = (await (await post(`${lb}/agents/kitchen/ask`, { query: { text: '2 cups in ml' } })).json()) as { results: Array<{ unitText: string }> };
  expect(kitchen.results[0]!.unitText).toBe('ml');
  const peer = (await (await post(`${lb}/nlip/`, { format: 'text', subformat: 'english', content: 'soup', label: 'nlipper' })).json()) as { format: string };
  expect(peer.format).toBe('text');
  const webtool = (await (await fetch(`${lb}/webtools/kitchen`)).json()) as { actions: Array<{ name: string }> };
  expect(webtool.actions.map((a) => a.name)).toContain('convert');
}
