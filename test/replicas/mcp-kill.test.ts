/**
 * Issue 24, with a real kill: an ask to an MCP agent whose tool is annotated `readOnlyHint` becomes a
 * promise on a replica that is then killed (SIGKILL, no cleanup); a surviving replica on the same
 * Redis takes the promise over when its lease ends and runs the call again, so the client's
 * `/await` gets the answer. The same ask to a tool that declares nothing fails as lost.
 */
import { Hono } from 'hono';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listenApp, type TestServer } from '../support/http.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';

const calls: string[] = [];

/** An MCP server whose tools answer after 1.5 s: `lookup` read-only, `order` declaring nothing. */
function slowServer(): McpServer {
  const server = new McpServer({ name: 'slow-upstream', version: '1.0.0' });
  for (const [name, annotations] of [['lookup', { readOnlyHint: true }], ['order', {}]] as const) {
    server.registerTool(name, { description: `${name} slowly`, inputSchema: z.object({ q: z.string() }), annotations }, async ({ q }) => {
      calls.push(`${name}:${q}`);
      await new Promise((r) => setTimeout(r, 1500));
      return { content: [{ type: 'text', text: `${name} found ${q}` }] };
    });
  }
  return server;
}

/**
 * Waits until the upstream has the call: the 202 comes at promiseAfterMs, and on a loaded machine a
 * victim's first MCP call (SDK load, handshake) can still be on its way then (regression: an
 * oldest-Node CI run killed the victim before the call left it, and the upstream saw none).
 */
async function reachedUpstream(call: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!calls.includes(call)) {
    if (Date.now() > deadline) throw new Error(`the upstream never got ${call}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const post = async (base: string, path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describeRedis('regression "an MCP call lost with its replica fails though its tool is read-only" (issue 24), with kill -9', () => {
  let redis: RedisServer;
  let upstream: TestServer;
  let handler: ReturnType<typeof createMcpHandler>;
  let survivor: GatewayProcess;
  let config: Record<string, unknown>;
  beforeAll(async () => {
    redis = await startRedis();
    handler = createMcpHandler(() => slowServer(), { legacy: 'reject' });
    const app = new Hono();
    app.all('/mcp', (c) => handler.fetch(c.req.raw));
    upstream = await listenApp(app);
    const url = `${upstream.url}/mcp`;
    config = {
      store: { kind: 'redis', url: redis.url, prefix: 'mcp-kill:' },
      defaults: { promiseAfterMs: 150, leaseMs: 600 },
      agents: [
        { name: 'lookup', kind: 'mcp', url, ask: { tool: 'lookup', arguments: { q: '{{query.text}}' } } },
        { name: 'orders', kind: 'mcp', url, ask: { tool: 'order', arguments: { q: '{{query.text}}' } } },
      ],
    };
    survivor = await spawnGateway(config);
  }, 60_000);
  afterAll(async () => {
    await survivor?.stop();
    await handler?.close();
    await upstream?.close();
    await redis?.stop();
  });

  it('the survivor runs the read-only call again and the client gets its answer', async () => {
    const victim = await spawnGateway(config);
    const asked = await post(victim.url, '/agents/lookup/ask', { query: { text: 'soup' } });
    expect(asked.status).toBe(202);
    await reachedUpstream('lookup:soup');
    await victim.kill();
    const settled = await post(survivor.url, '/await', { promise_token: asked.body.promise.token, action: 'checkin', wait_ms: 10_000 });
    expect(settled.body._meta.response_type).toBe('answer');
    expect(JSON.stringify(settled.body)).toContain('lookup found soup');
    expect(calls.filter((c) => c === 'lookup:soup')).toHaveLength(2);
  }, 30_000);

  it('a call of a tool that declares nothing fails as lost and is not run again', async () => {
    const victim = await spawnGateway(config);
    const asked = await post(victim.url, '/agents/orders/ask', { query: { text: 'one pizza' } });
    expect(asked.status).toBe(202);
    await reachedUpstream('order:one pizza');
    await victim.kill();
    const settled = await post(survivor.url, '/await', { promise_token: asked.body.promise.token, action: 'checkin', wait_ms: 10_000 });
    expect(settled.body._meta.response_type).toBe('failure');
    expect(settled.body.error.message).toMatch(/lost/);
    expect(calls.filter((c) => c === 'order:one pizza')).toHaveLength(1);
  }, 30_000);
});
