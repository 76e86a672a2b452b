/**
 * Issue 11, ownership on the Redis store across replicas: two `nlgate serve` processes share one real
 * redis-server, and a handle made on one replica by alice (127.0.0.1) is unknown to bob (127.0.0.2)
 * on the other — promises (also after a re-run on a survivor), conversations, MCP sessions, uploads.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { alice, bob, McpSession, NEVER_ISSUED, nlipMessage, partsOf, postJson, visible, type Fetch } from './owner-support.ts';

describeRedis('ownership across two replicas on one Redis', () => {
  let redis: RedisServer;
  let upstream: Awaited<ReturnType<typeof startV055Agent>>;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const config = (agentUrl: string, redisUrl: string) => ({
    store: { kind: 'redis', url: redisUrl, prefix: 'owners:' },
    defaults: { promiseAfterMs: 150, leaseMs: 600 },
    agents: [
      { name: 'slowpoke', kind: 'nlweb', url: agentUrl, streaming: false },
      { name: 'retryable', kind: 'nlweb', url: agentUrl, streaming: false, idempotent: true },
      // Answers, never a promise: the conversation test reads each turn's answer, and 150 ms is a
      // deadline a loaded CI machine can miss (regression: a turn came back as a 202 promise).
      { name: 'steady', kind: 'nlweb', url: agentUrl, streaming: false, promiseAfterMs: 60_000 },
    ],
  });

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startV055Agent({ slowMs: 1200 });
    [a, b] = await Promise.all([spawnGateway(config(upstream.url, redis.url)), spawnGateway(config(upstream.url, redis.url))]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await upstream?.close();
    await redis?.stop();
  });

  const awaitOn = (who: Fetch, base: string, token: string, action = 'checkin', wait_ms = 0) =>
    postJson(who, `${base}/await`, { promise_token: token, action, wait_ms });

  it('a promise asked on A: bob on B gets the unknown answer for checkin and cancel; alice on B gets the answer', async () => {
    const asked = await postJson(alice, `${a.url}/agents/slowpoke/ask`, { query: { text: 'slow pasta' } });
    expect(asked.status).toBe(202);
    const token = asked.body.promise.token as string;
    expect(visible(await awaitOn(bob, b.url, token))).toEqual(visible(await awaitOn(bob, b.url, NEVER_ISSUED)));
    expect(visible(await awaitOn(bob, b.url, token, 'cancel'))).toEqual(visible(await awaitOn(bob, b.url, NEVER_ISSUED, 'cancel')));
    expect((await awaitOn(alice, b.url, token, 'checkin', 5000)).body._meta.response_type).toBe('answer');
  });

  it('a re-run on another replica keeps the owner: after A dies, B runs the call again for alice only', async () => {
    const victim = await spawnGateway(config(upstream.url, redis.url));
    const asked = await postJson(alice, `${victim.url}/agents/retryable/ask`, { query: { text: 'slow bread' } });
    const token = asked.body.promise.token as string;
    await victim.kill();
    const settled = await awaitOn(alice, b.url, token, 'checkin', 10_000);
    expect(settled.body._meta.response_type).toBe('answer');
    expect(visible(await awaitOn(bob, a.url, token))).toEqual(visible(await awaitOn(bob, a.url, NEVER_ISSUED)));
  });

  it('the same client-chosen conversation id on two replicas: bob never sees alice\'s prev or upstream session_context', async () => {
    const id = 'shared-conversation-id-0001';
    const turn = (who: Fetch, base: string, text: string) =>
      postJson(who, `${base}/agents/steady/ask`, { query: { text }, meta: { session_context: { conversation_id: id } } });
    await turn(alice, a.url, 'alice first secret question');
    const second = await turn(alice, b.url, 'alice second');
    expect(second.body._meta.debug.context.prev).toEqual(['alice first secret question']);
    expect(second.body._meta.debug.meta.session_context.upstream_session).toBe(1);
    const theirs = await turn(bob, b.url, 'bob first');
    expect(theirs.body._meta.session_context.conversation_id).toBe(id);
    expect(theirs.body._meta.debug.context).toBeNull();
    expect(theirs.body._meta.debug.meta.session_context).toBeUndefined();
  });

  it('an MCP session initialised on A by alice: bob gets 404 on B for POST, GET and DELETE; alice keeps using it', async () => {
    const mine = await McpSession.open(`${a.url}/mcp`, alice);
    const theirs = mine.as(bob);
    const unknown = new McpSession(`${b.url}/mcp`, 'mcp_AAAAAAAAAAAAAAAAAAAAAA', bob);
    const onB = new McpSession(`${b.url}/mcp`, mine.id, bob);
    const expected = await unknown.rpc('tools/list');
    expect(expected.status).toBe(404);
    expect(await onB.rpc('tools/list')).toEqual(expected);
    expect(await onB.listenStatus()).toBe(404);
    expect(await onB.remove()).toEqual(await unknown.remove());
    expect((await theirs.rpc('tools/list')).status).toBe(404);
    const still = await new McpSession(`${b.url}/mcp`, mine.id, alice).rpc('tools/list');
    expect(still.status).toBe(200);
    expect(still.message?.result?.tools.map((t: { name: string }) => t.name)).toContain('ask');
  });

  it('an NLIP upload posted on A by alice is unknown to bob on B, and known to alice there', async () => {
    const form = new FormData();
    form.append('contents', new Blob([Buffer.from('alice private bytes')], { type: 'text/plain' }), 'note.txt');
    const up = await alice(`${a.url}/nlip/upload/`, { method: 'POST', body: form });
    expect(up.status).toBe(200);
    const uri = partsOf(await up.json(), 'structured', 'uri')[0]?.content as string;
    const use = (who: Fetch, ref: string) =>
      postJson(who, `${b.url}/agents/slowpoke/nlip/`, nlipMessage('what is in it?', [{ format: 'structured', subformat: 'uri', content: ref }]));
    const missing = 'An upload this message references is unknown or has expired; upload it again.';
    expect(String((await use(bob, uri)).body.content)).toContain(missing);
    expect(String((await use(alice, uri)).body.content)).not.toContain(missing);
  });
});
