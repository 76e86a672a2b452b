/**
 * The `mcp` adapter against real MCP servers: the fixture over Streamable HTTP (spoken as 2026-07-28
 * and as 2025-11-25), over legacy HTTP+SSE, and over stdio (a spawned process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpAgent } from '../../adapters/mcp/index.ts';
import type { ClientChannel } from '../../src/core/agent.ts';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.ts';
import { startSseFixture, type SseFixture } from './fixtures/sse-server.ts';
import { STDIO_FIXTURE, callContext, drain, eventually, mcpAgent } from './support.ts';

let http: HttpFixture;
let sse: SseFixture;

beforeAll(async () => {
  http = await startHttpFixture();
  sse = await startSseFixture();
});
afterAll(async () => {
  await http?.close();
  await sse?.close();
});

const SEARCH = { tool: 'search', arguments: { query: '{{query.text}}', limit: 5 } };

const upstreams: Array<[string, () => Record<string, unknown>]> = [
  ['Streamable HTTP, 2026-07-28', () => ({ url: http.mcpUrl, protocol: '2026-07-28' })],
  ['Streamable HTTP, 2025-11-25', () => ({ url: http.mcpUrl, protocol: 'legacy' })],
  ['stdio', () => ({ ...STDIO_FIXTURE })],
];

describe.each(upstreams)('mcp adapter over %s', (_label, upstream) => {
  let agent: McpAgent;
  let invalidations = 0;
  beforeAll(() => {
    agent = mcpAgent({ ...upstream(), ask: SEARCH }, {}, () => invalidations++);
  });
  afterAll(() => agent.close());

  it('describes the upstream tools and what it passes through', async () => {
    const d = await agent.describe();
    expect(d.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(['search', 'count', 'fail', 'confirm']));
    expect(d.tools?.find((t) => t.name === 'search')?.inputSchema).toMatchObject({ type: 'object', properties: { query: { type: 'string' } } });
    expect(d.forwards?.mcp).toEqual(expect.arrayContaining(['resources/read', 'prompts/get', 'logging/setLevel']));
  });

  it('answers an ask through the mapped tool, as typed result items', async () => {
    const events = await drain(agent.ask({ query: { text: 'pumpkin' } }, callContext()));
    const items = events.flatMap((e) => (e.type === 'result' ? [e.item] : []));
    expect(items.map((i) => i.name)).toEqual(['Pumpkin soup', 'Pumpkin pie']);
    expect(items[0]).toMatchObject({ '@type': 'Recipe', '@id': 'urn:recipe:1', score: 0.9, site: 'fixture' });
    expect(events.at(-1)?.type).toBe('complete');
  });

  it('passes a structured call through, and reports a tool error as isError', async () => {
    const ok = await agent.callTool('search', { query: 'lentil' }, callContext());
    expect(ok.structured).toEqual({ results: [expect.objectContaining({ name: 'Lentil stew' })] });
    expect(ok.text).toBe('1 recipes for "lentil"');
    const bad = await agent.callTool('fail', {}, callContext());
    expect(bad).toMatchObject({ isError: true, text: 'the fixture failed on purpose' });
  });

  it('relays upstream progress to the client channel', async () => {
    const seen: number[] = [];
    const result = await agent.callTool('count', { n: 3 }, callContext({ progress: (p) => seen.push(p.progress) }));
    expect(result.text).toBe('counted to 3');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('relays an upstream elicitation to the client, and declines when the client cannot answer', async () => {
    const asked: Array<Record<string, unknown>> = [];
    const channel: ClientChannel = { elicit: async (params) => (asked.push(params), { action: 'accept', content: { ok: true } }) };
    expect((await agent.callTool('confirm', { message: 'Really?' }, callContext(channel))).text).toBe('confirmed: true');
    expect(asked[0]).toMatchObject({ message: 'Really?', requestedSchema: { properties: { ok: { type: 'boolean' } } } });
    expect((await agent.callTool('confirm', { message: 'Really?' }, callContext())).text).toBe('not confirmed');
  });

  it('passes resources and prompts through without upstream envelope fields', async () => {
    const read = await agent.forward('mcp', 'resources/read', { uri: 'fixture://readme' }, callContext());
    expect(read).toEqual({ contents: [{ uri: 'fixture://readme', mimeType: 'text/plain', text: 'The fixture readme' }] });
    const prompt = await agent.forward('mcp', 'prompts/get', { name: 'greet', arguments: { name: 'Ada' } }, callContext());
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to Ada' } }]);
    await expect(agent.forward('mcp', 'resources/read', { uri: 'fixture://missing' }, callContext())).rejects.toMatchObject({ code: 'SCHEMA_ERROR' });
  });

  it('refreshes its tool list when the upstream says it changed (list_changed)', async () => {
    const name = `fresh_${Math.random().toString(36).slice(2, 8).replace(/\d/g, 'x')}`;
    const before = invalidations;
    await agent.callTool('add_tool', { name }, callContext());
    await eventually(() => invalidations > before);
    expect((await agent.describe()).tools?.map((t) => t.name)).toContain(name);
  });
});

describe('mcp adapter over legacy HTTP+SSE', () => {
  it('lists tools, asks and calls over the SSE transport', async () => {
    const agent = mcpAgent({ url: sse.sseUrl, transport: 'sse', ask: SEARCH });
    try {
      expect((await agent.describe()).tools?.map((t) => t.name)).toContain('search');
      const events = await drain(agent.ask({ query: { text: 'stew' } }, callContext()));
      expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
      expect((await agent.callTool('count', { n: 2 }, callContext())).text).toBe('counted to 2');
    } finally {
      await agent.close();
    }
  });
});

describe('mcp adapter over Streamable HTTP: sessions and credentials', () => {
  it('re-initializes transparently when the upstream expired its 2025 session', async () => {
    const agent = mcpAgent({ url: http.mcpUrl, protocol: 'legacy' });
    try {
      await agent.callTool('search', { query: 'pie' }, callContext());
      const firstSession = http.seen.filter((s) => s.sessionId).at(-1)?.sessionId;
      await http.expireSessions();
      const again = await agent.callTool('search', { query: 'pie' }, callContext());
      expect(again.structured).toEqual({ results: [expect.objectContaining({ name: 'Pumpkin pie' })] });
      const lastSession = http.seen.filter((s) => s.sessionId).at(-1)?.sessionId;
      expect(lastSession).toBeTruthy();
      expect(lastSession).not.toBe(firstSession);
    } finally {
      await agent.close();
    }
  });

  it('sends the configured headers and never the client credentials unless forwardCredentials', async () => {
    const plain = mcpAgent({ url: http.mcpUrl, headers: { 'x-fixture-key': 'from-config' } });
    const forwarding = mcpAgent({ url: http.mcpUrl }, { forwardCredentials: true });
    const creds = { authorization: 'Bearer client-token' };
    try {
      // The core hands credentials over only with forwardCredentials; an adapter must ignore them otherwise.
      expect((await plain.callTool('whoami', {}, callContext(undefined, creds))).text).toBe('(none)');
      expect(http.seen.at(-1)?.custom).toBe('from-config');
      expect((await forwarding.callTool('whoami', {}, callContext(undefined, creds))).text).toBe('Bearer client-token');
      const other = await forwarding.callTool('whoami', {}, callContext(undefined, { authorization: 'Bearer someone-else' }));
      expect(other.text).toBe('Bearer someone-else');
    } finally {
      await plain.close();
      await forwarding.close();
    }
  });

  it('fails with UPSTREAM_ERROR, without the URL, when the server cannot be reached', async () => {
    const agent = mcpAgent({ url: 'http://127.0.0.1:9/mcp', protocol: 'legacy' });
    const err = await agent.describe().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect(String((err as Error).message)).not.toContain('127.0.0.1');
    await agent.close();
  });
});

describe('mcp adapter over stdio: restarts', () => {
  it('spawns the server again after it died', async () => {
    const agent = mcpAgent({ ...STDIO_FIXTURE, protocol: 'legacy', restart: { maxAttempts: 3, backoffMs: 50 } });
    try {
      const first = (await agent.callTool('pid', {}, callContext())).text;
      await agent.callTool('crash', {}, callContext());
      let second: string | undefined;
      // The crash lands just after the answer; the next call that works is answered by a new process.
      await eventually(async () => {
        second = (await agent.callTool('pid', {}, callContext()).catch(() => undefined))?.text;
        return second !== undefined && second !== first;
      }, 10_000);
      expect(second).toMatch(/^\d+$/);
      expect(second).not.toBe(first);
    } finally {
      await agent.close();
    }
  });
});
