import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startLegacyServer, type LegacyServer } from './legacy-server.ts';

/** Legacy agents reached through the other inbound protocols: NLIP and MCP, two turns each. */
const servers: Partial<Record<'A' | 'C', LegacyServer>> = {};
let gw: TestGateway;

beforeAll(async () => {
  servers.A = await startLegacyServer('A');
  servers.C = await startLegacyServer('C');
  gw = await startGateway({
    agents: [
      { name: 'old-a', kind: 'nlweb-legacy', url: servers.A.url, generation: 'A', sites: ['a-only'] },
      { name: 'old-c', kind: 'nlweb-legacy', url: servers.C.url },
      { name: 'old-c-mcp', kind: 'nlweb-legacy', url: servers.C.url, transport: 'mcp', sites: ['c-mcp'] },
    ],
  });
});
afterAll(async () => {
  await gw?.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

type NlipMessage = { format: string; subformat: string; content: unknown; label?: string; submessages?: NlipMessage[] };
async function nlip(agent: string, text: string, submessages: NlipMessage[] = []): Promise<NlipMessage> {
  const body = { messagetype: 'user', format: 'text', subformat: 'english', content: text, ...(submessages.length > 0 ? { submessages } : {}) };
  const res = await fetch(`${gw.url}/agents/${agent}/nlip/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as NlipMessage;
}

describe.each([
  ['old-a', 'A'],
  ['old-c', 'C'],
  ['old-c-mcp', 'C'],
] as const)('NLIP in front of legacy agent %s', (agent, gen) => {
  it('answers with structured items; the second turn, with the conversation token, carries the first query as prev', async () => {
    const first = await nlip(agent, 'pumpkin pie');
    const items = (first.submessages ?? []).filter((s) => s.format === 'structured');
    expect(items.map((s) => (s.content as { '@type': string })['@type'])).toEqual(expect.arrayContaining(['Recipe', 'Recipe']));
    const token = (first.submessages ?? []).find((s) => s.format === 'token' && s.subformat === 'conversation');
    expect(token).toBeDefined();

    const second = await nlip(agent, 'vegan ones?', [token!]);
    expect(servers[gen]!.asks().at(-1)!.read!.prev).toEqual(['pumpkin pie']);
    const names = (second.submessages ?? []).filter((s) => s.format === 'structured').map((s) => (s.content as { name?: string }).name);
    expect(names).toContain('pumpkin pie / vegan ones? #1');
  });
});

describe.each([
  ['old-a', 'A'],
  ['old-c', 'C'],
  ['old-c-mcp', 'C'],
] as const)('MCP (the real SDK client) in front of legacy agent %s', (agent, gen) => {
  it('the ask tool names the sites; two turns carry the first query as prev', async () => {
    const client = new Client({ name: 'legacy-cross-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/agents/${agent}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const ask = tools.find((t) => t.name === 'ask')!;
      const sites = { 'old-a': 'a-only', 'old-c': 'seriouseats, npr podcasts', 'old-c-mcp': 'c-mcp' }[agent];
      expect(ask.description).toContain(`about the sites ${sites}`);
      const first = await client.callTool({ name: 'ask', arguments: { query: { text: 'pumpkin pie' } } });
      const one = first.structuredContent as { _meta: { session_context: Record<string, unknown> }; results: Array<{ '@type': string }> };
      expect(one.results.map((r) => r['@type'])).toEqual(expect.arrayContaining(['Recipe', 'Recipe']));
      const second = await client.callTool({ name: 'ask', arguments: { query: { text: 'vegan ones?' }, meta: { session_context: one._meta.session_context } } });
      expect(servers[gen]!.asks().at(-1)!.read!.prev).toEqual(['pumpkin pie']);
      const two = second.structuredContent as { _meta: Record<string, unknown>; results: Array<{ name?: string }> };
      expect(two._meta.decontextualized_query).toBe('pumpkin pie / vegan ones?');
      expect(two.results.map((r) => r.name)).toContain('pumpkin pie / vegan ones? #1');
    } finally {
      await client.close();
    }
  });
});
