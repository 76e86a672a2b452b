/**
 * Issue 24: a promise lost with its replica is run again elsewhere when running it twice does no
 * harm. For an MCP agent that is what its upstream declares: a tool annotated `readOnlyHint` or
 * `idempotentHint`, for a `tools/call` kept as a promise (MCP tasks) and for an ask mapped to that
 * tool alike; `idempotent: false` in the agent's config opts out. A real MCP upstream over loopback
 * HTTP counts the calls it gets; the lost replica's promises are written to the store as a replica
 * that died mid-call leaves them (running, its lease over), and this gateway's sweep takes them over.
 */
import { Hono } from 'hono';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedToolCall } from '../../src/core/reruns.ts';
import { ownerTag } from '../../src/core/ownership.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { PromiseRecord } from '../../src/store/store.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { listenApp, type TestServer } from '../support/http.ts';

const calls: Array<{ tool: string; q: string }> = [];

/** An MCP server with one read-only tool, one idempotent tool and one tool that declares nothing. */
function upstreamServer(): McpServer {
  const server = new McpServer({ name: 'rerun-upstream', version: '1.0.0' });
  const tool = (name: string, annotations: Record<string, boolean>) =>
    server.registerTool(name, { description: `${name} a thing`, inputSchema: z.object({ q: z.string() }), annotations }, async ({ q }) => {
      calls.push({ tool: name, q });
      return { content: [{ type: 'text', text: `${name}: ${q}` }] };
    });
  tool('lookup', { readOnlyHint: true });
  tool('upsert', { readOnlyHint: false, idempotentHint: true, destructiveHint: false });
  tool('order', {});
  return server;
}

let upstream: TestServer;
let handler: ReturnType<typeof createMcpHandler>;
let gw: TestGateway;
let store: MemoryStore;

beforeAll(async () => {
  handler = createMcpHandler(() => upstreamServer(), { legacy: 'reject' });
  const app = new Hono();
  app.all('/mcp', (c) => handler.fetch(c.req.raw));
  upstream = await listenApp(app);
  const url = `${upstream.url}/mcp`;
  store = new MemoryStore();
  gw = await startGateway(
    {
      defaults: { leaseMs: 400 },
      agents: [
        { name: 'lookup', kind: 'mcp', url, ask: { tool: 'lookup', arguments: { q: '{{query.text}}' } } },
        { name: 'upsert', kind: 'mcp', url, ask: { tool: 'upsert', arguments: { q: '{{query.text}}' } } },
        { name: 'orders', kind: 'mcp', url, ask: { tool: 'order', arguments: { q: '{{query.text}}' } } },
        { name: 'careful', kind: 'mcp', url, idempotent: false, ask: { tool: 'lookup', arguments: { q: '{{query.text}}' } } },
      ],
    },
    { store },
  );
}, 30_000);
afterAll(async () => {
  await gw?.close();
  await store?.close();
  await handler?.close();
  await upstream?.close();
});

/** A promise as a replica killed mid-call leaves it: running, owned by that replica, its lease over. */
async function lostPromise(agent: string, request: unknown): Promise<string> {
  const now = Date.now();
  const token = `lost_${agent}_${Math.random().toString(36).slice(2)}_${now}`;
  const record: PromiseRecord = { token, agent, status: 'running', owner: 'replica-killed', leaseUntil: now - 1, createdAt: now, updatedAt: now, request, principal: ownerTag(undefined) };
  await store.createPromise(record, 60_000);
  return token;
}

const settled = (token: string) => gw.gateway.await({ promise_token: token, action: 'checkin', wait_ms: 5_000 } as never);

describe('regression "an MCP tool call lost with its replica fails though the tool is read-only" (issue 24)', () => {
  it('a tools/call kept as a promise keeps the tool and its arguments, so another replica can run it again', async () => {
    const info = await gw.gateway.callToolAsPromise('lookup', 'lookup', { q: 'kept' });
    expect((await store.getPromise(info.token))?.request).toEqual(storedToolCall('lookup', { q: 'kept' }));
  });

  it('a lost tools/call of a readOnlyHint tool is run again by the replica that takes it over', async () => {
    const token = await lostPromise('lookup', storedToolCall('lookup', { q: 'tool-again' }));
    const answer = (await settled(token)) as { _meta: { response_type: string }; results?: Array<{ toolResult?: { text?: string } }> };
    expect(answer._meta.response_type).toBe('answer');
    expect(answer.results?.[0]?.toolResult?.text).toBe('lookup: tool-again');
    expect(calls).toContainEqual({ tool: 'lookup', q: 'tool-again' });
  });

  it('a lost ask mapped to a readOnlyHint or idempotentHint tool is run again', async () => {
    for (const agent of ['lookup', 'upsert']) {
      const token = await lostPromise(agent, { query: { text: `ask-again-${agent}` } });
      expect((await settled(token))._meta.response_type).toBe('answer');
      expect(calls).toContainEqual({ tool: agent, q: `ask-again-${agent}` });
    }
  });

  it('a lost call of a tool that declares neither hint fails as lost (WORKER_LOST), and the upstream never sees it again', async () => {
    const asked = await lostPromise('orders', { query: { text: 'order-once' } });
    const called = await lostPromise('orders', storedToolCall('order', { q: 'order-tool-once' }));
    for (const token of [asked, called]) {
      const lost = (await settled(token)) as { _meta: { response_type: string }; error?: { message: string } };
      expect(lost._meta.response_type).toBe('failure');
      expect(lost.error?.message).toMatch(/replica running this call was lost/);
    }
    expect(calls.filter((c) => c.tool === 'order')).toEqual([]);
  });

  it('`idempotent: false` opts an agent out even when its tool is read-only', async () => {
    const token = await lostPromise('careful', { query: { text: 'careful-once' } });
    expect(((await settled(token)) as { error?: { message: string } }).error?.message).toMatch(/replica running this call was lost/);
    expect(calls.some((c) => c.q === 'careful-once')).toBe(false);
  });
});
