/**
 * MCP both ways through one gateway: an NLWeb client asks an MCP server (`/ask` → `mcp` adapter),
 * and MCP clients use a gateway that federates a scripted agent and an MCP server (prefixed tools,
 * passthrough of resources and prompts, progress and elicitation relayed end to end).
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.ts';
import { connectClient, eventually } from './support.ts';

let fixture: HttpFixture;
let gw: TestGateway;

beforeAll(async () => {
  fixture = await startHttpFixture();
  gw = await startGateway({
    agents: [
      { name: 'recipes', kind: 'scripted' },
      { name: 'pantry', kind: 'mcp', url: fixture.mcpUrl, ask: { tool: 'search', arguments: { query: '{{query.text}}' } } },
    ],
  });
});
afterAll(async () => {
  await gw?.close();
  await fixture?.close();
});

describe('an NLWeb client asking an MCP server', () => {
  it('gets a v0.55 answer from the MCP tool behind /ask', async () => {
    const res = await fetch(`${gw.url}/agents/pantry/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'pumpkin' } }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { _meta: Record<string, unknown>; results: Array<Record<string, unknown>> };
    expect(body._meta).toMatchObject({ response_type: 'answer', version: '0.55' });
    expect(body.results.map((r) => r.name)).toEqual(['Pumpkin soup', 'Pumpkin pie']);
    expect(body.results[0]).toMatchObject({ '@type': 'Recipe', '@id': 'urn:recipe:1', score: 0.9, site: 'fixture' });
  });
});

describe('MCP clients of a gateway with two agents', () => {
  let legacy: Client;
  let modern: Client;
  beforeAll(async () => {
    legacy = await connectClient(`${gw.url}/mcp`, '2025-11-25', { onElicit: () => ({ action: 'accept', content: { ok: true } }) });
    modern = await connectClient(`${gw.url}/mcp`, '2026-07-28', { onElicit: () => ({ action: 'accept', content: { ok: true } }) });
  });
  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
  });

  it('lists every agent tool as <agent>__<tool>, within 64 characters', async () => {
    const names = (await modern.listTools()).tools.map((t) => t.name);
    expect(names.slice(0, 3)).toEqual(['ask', 'await', 'recipes__echo']);
    expect(names).toEqual(expect.arrayContaining(['pantry__search', 'pantry__count', 'pantry__confirm']));
    expect(names.every((n) => n.length <= 64)).toBe(true);
  });

  it('routes a prefixed call to its agent and keeps structured content and errors', async () => {
    const r = await modern.callTool({ name: 'pantry__search', arguments: { query: 'lentil' } });
    expect(r.structuredContent).toEqual({ results: [expect.objectContaining({ name: 'Lentil stew' })] });
    const failed = await legacy.callTool({ name: 'pantry__fail', arguments: {} });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the fixture failed on purpose' }] });
  });

  it('relays upstream progress to both generations of client', async () => {
    for (const client of [legacy, modern]) {
      const seen: number[] = [];
      const r = await client.callTool({ name: 'pantry__count', arguments: { n: 3 } }, { onprogress: (p) => seen.push(p.progress) });
      expect((r.content as Array<{ text: string }>)[0]!.text).toBe('counted to 3');
      expect(seen).toEqual([1, 2, 3]);
    }
  });

  it("relays an upstream elicitation to a 2025 session's client, and to a 2026 client as an input_required round", async () => {
    const asked = await legacy.callTool({ name: 'pantry__confirm', arguments: { message: 'Use the last egg?' } });
    expect((asked.content as Array<{ text: string }>)[0]!.text).toBe('confirmed: true');
    // 2026-07-28 has no server→client request mid-call: the upstream's input_required result goes to
    // the client, which calls again with its answer (the SDK client does the rounds itself).
    const rounds = await modern.callTool({ name: 'pantry__confirm', arguments: { message: 'Use the last egg?' } });
    expect((rounds.content as Array<{ text: string }>)[0]!.text).toBe('confirmed: true');
  });

  it('passes resources and prompts of the MCP agent through', async () => {
    for (const client of [legacy, modern]) {
      const read = await client.readResource({ uri: 'fixture://readme' });
      expect(read.contents).toEqual([{ uri: 'fixture://readme', mimeType: 'text/plain', text: 'The fixture readme' }]);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to Ada' } }]);
    }
  });

  it("serves one agent's tools at /agents/{name}/mcp and asks that agent", async () => {
    const client = await connectClient(`${gw.url}/agents/pantry/mcp`, '2026-07-28');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('pantry__search');
      expect(names).not.toContain('recipes__echo');
      const r = await client.callTool({ name: 'ask', arguments: { query: { text: 'stew' } } });
      expect((r.structuredContent as { results: Array<{ name: string }> }).results.map((i) => i.name)).toEqual(['Lentil stew']);
    } finally {
      await client.close();
    }
  });

  it('shows a tool the upstream added at run time (list_changed)', async () => {
    await modern.callTool({ name: 'pantry__add_tool', arguments: { name: 'fresh_tool' } });
    await eventually(async () => (await modern.listTools()).tools.some((t) => t.name === 'pantry__fresh_tool'));
    const r = await legacy.callTool({ name: 'pantry__fresh_tool', arguments: {} });
    expect((r.content as Array<{ text: string }>)[0]!.text).toBe('fresh_tool ran');
  });
});

describe('MCP clients of a gateway with two MCP agents', () => {
  it('merges their prompts as <agent>__<prompt> and routes a get to the named agent', async () => {
    const two = await startGateway({
      agents: [
        { name: 'pantry', kind: 'mcp', url: fixture.mcpUrl },
        { name: 'larder', kind: 'mcp', url: fixture.mcpUrl, protocol: 'legacy' },
      ],
    });
    const client = await connectClient(`${two.url}/mcp`, '2025-11-25');
    try {
      expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['larder__greet', 'pantry__greet']);
      const prompt = await client.getPrompt({ name: 'larder__greet', arguments: { name: 'Grace' } });
      expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Say hello to Grace' });
      await expect(client.getPrompt({ name: 'cellar__greet', arguments: { name: 'x' } })).rejects.toMatchObject({ code: -32602 });
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['fixture://readme', 'fixture://readme']);
      expect((await client.readResource({ uri: 'fixture://readme' })).contents).toHaveLength(1);
    } finally {
      await client.close();
      await two.close();
    }
  });
});
