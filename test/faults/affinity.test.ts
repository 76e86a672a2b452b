/**
 * No sticky sessions anywhere (issue "Faults and scale-out" item 4): two replicas on one Redis
 * behind a round-robin proxy with no affinity, so consecutive requests of one client land on
 * different replicas. A 2025 MCP client answers an upstream's elicitation, an NLWeb client continues
 * a conversation, and an NLIP peer continues its session.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectClient } from '../mcp/support.ts';
import { startHttpFixture, type HttpFixture } from '../mcp/fixtures/http-server.ts';
import { StrictNlipClient } from '../nlip/strict-client.ts';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { startRoundRobin, type RoundRobin } from '../support/round-robin.ts';

describeRedis('two replicas behind a round-robin proxy, no affinity', () => {
  let redis: RedisServer;
  let upstream: Awaited<ReturnType<typeof startV055Agent>>;
  let mcp: HttpFixture;
  let a: TestGateway;
  let b: TestGateway;
  let lb: RoundRobin;

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startV055Agent();
    mcp = await startHttpFixture();
    const config = {
      store: { kind: 'redis', url: redis.url, prefix: 'affinity:' },
      agents: [
        { name: 'web', kind: 'nlweb', url: upstream.url, streaming: false },
        { name: 'pantry', kind: 'mcp', url: mcp.mcpUrl, ask: { tool: 'search', arguments: { query: '{{query.text}}' } } },
      ],
    };
    [a, b] = await Promise.all([startGateway(config, { replicaId: 'replica-a' }), startGateway(config, { replicaId: 'replica-b' })]);
    lb = await startRoundRobin([a.url, b.url]);
  }, 30_000);
  afterAll(async () => {
    await lb?.close();
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([upstream?.close(), mcp?.close()]);
    await redis?.stop();
  });

  /** The replicas the requests matching `path` went to, in order. */
  const replicasFor = (path: string, from: number) => lb.routed.slice(from).filter((r) => r.path.includes(path)).map((r) => r.replica);

  it('an NLWeb client continues its conversation on the other replica', async () => {
    const from = lb.routed.length;
    const ask = async (text: string, conversationId?: string) => {
      const res = await fetch(`${lb.url}/agents/web/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: { text }, prefer: { streaming: false }, ...(conversationId ? { meta: { session_context: { conversation_id: conversationId } } } : {}) }),
      });
      return (await res.json()) as { _meta: { session_context: { conversation_id: string } } };
    };
    const first = await ask('pasta for two');
    const id = first._meta.session_context.conversation_id;
    const second = await ask('and a dessert', id);
    expect(second._meta.session_context.conversation_id).toBe(id);
    expect(new Set(replicasFor('/ask', from)).size).toBe(2);
    // The replica that served the second turn sent the first as prev.
    expect(upstream.received.at(-1)?.body).toMatchObject({ query: { text: 'and a dessert' }, context: { prev: ['pasta for two'] } });
  });

  it('an NLIP peer continues its session on the other replica', async () => {
    const from = lb.routed.length;
    const client = new StrictNlipClient(`${lb.url}/agents/web/nlip/`);
    await client.ask('soup tonight');
    const token = client.conversationToken;
    await client.ask('something lighter');
    expect(client.conversationToken).toBe(token);
    expect(new Set(replicasFor('/nlip', from)).size).toBe(2);
    expect(upstream.received.at(-1)?.body).toMatchObject({ query: { text: 'something lighter' }, context: { prev: ['soup tonight'] } });
  });

  it('a 2025 MCP client answers an elicitation whose answer lands on the other replica', async () => {
    const from = lb.routed.length;
    let asked = 0;
    const client = await connectClient(`${lb.url}/mcp`, '2025-11-25', {
      onElicit: () => {
        asked++;
        return { action: 'accept', content: { ok: true } };
      },
    });
    try {
      const result = await client.callTool({ name: 'pantry__confirm', arguments: { message: 'Use the last egg?' } });
      expect(asked).toBe(1);
      expect((result.content as Array<{ text: string }>)[0]!.text).toBe('confirmed: true');
      expect(new Set(replicasFor('/mcp', from)).size).toBe(2);
    } finally {
      await client.close();
    }
  }, 30_000);
});
