import { afterAll, beforeAll, expect, it } from 'vitest';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { listenRaw, readBody, type TestServer } from '../support/http.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';

/**
 * Issue 3: two gateway processes sharing one real Redis act as one gateway. The upstream is a real
 * NLWeb v0.55 agent over HTTP whose `slow` answers take 1.5 s, so every ask becomes a promise
 * (promiseAfterMs 150) that either replica can resolve.
 */
const post = async (base: string, path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

/** An upstream that answers after 3 s and records the queries whose connection the caller dropped. */
async function startAbortWatcher(): Promise<TestServer & { aborted: string[] }> {
  const aborted: string[] = [];
  const server = await listenRaw(async (req, res) => {
    const text = (JSON.parse(await readBody(req)) as { query: { text: string } }).query.text;
    const timer = setTimeout(() => res.end(JSON.stringify({ _meta: { response_type: 'answer', version: '0.55' }, results: [] })), 3000);
    res.once('close', () => {
      if (!res.writableEnded) {
        clearTimeout(timer);
        aborted.push(text);
      }
    });
  });
  return Object.assign(server, { aborted });
}

describeRedis('replicas sharing one Redis', () => {
  let redis: RedisServer;
  let watcher: Awaited<ReturnType<typeof startAbortWatcher>>;
  let upstream: Awaited<ReturnType<typeof startV055Agent>>;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const config = (agentUrl: string, redisUrl: string) => ({
    store: { kind: 'redis', url: redisUrl, prefix: 'replicas:' },
    defaults: { promiseAfterMs: 150, leaseMs: 600 },
    agents: [
      // Asks to nlweb agents are queries, run again after a lost replica by default: this one opts out.
      { name: 'slowpoke', kind: 'nlweb', url: agentUrl, streaming: false, idempotent: false },
      { name: 'retryable', kind: 'nlweb', url: agentUrl, streaming: false, idempotent: true },
      { name: 'searcher', kind: 'nlweb', url: agentUrl, streaming: false },
      { name: 'watched', kind: 'nlweb', url: watcher.url, streaming: false },
    ],
  });

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startV055Agent({ slowMs: 1500 });
    watcher = await startAbortWatcher();
    [a, b] = await Promise.all([spawnGateway(config(upstream.url, redis.url)), spawnGateway(config(upstream.url, redis.url))]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await upstream?.close();
    await watcher?.close();
    await redis?.stop();
  });

  it('asks on one replica and awaits the answer on the other', async () => {
    const asked = await post(a.url, '/ask', { query: { text: 'slow pasta' } });
    expect(asked.status).toBe(202);
    const token = asked.body.promise.token as string;
    const done = await post(b.url, '/await', { promise_token: token, action: 'checkin', wait_ms: 5000 });
    expect(done.body._meta.response_type).toBe('answer');
    expect(done.body.results.length).toBeGreaterThan(0);
  });

  it('cancels on the other replica: the upstream call on the first is aborted, both say CANCELLED', async () => {
    const asked = await post(a.url, '/agents/watched/ask', { query: { text: 'slow soup' } });
    const token = asked.body.promise.token as string;
    const cancelled = await post(b.url, '/await', { promise_token: token, action: 'cancel' });
    expect(cancelled.body.error.code).toBe('CANCELLED');
    // Redis pub/sub carries the cancel to A, which aborts its upstream request well before 3 s.
    await expect.poll(() => watcher.aborted, { timeout: 2000, interval: 50 }).toContain('slow soup');
    const onA = await post(a.url, '/await', { promise_token: token, action: 'checkin' });
    expect(onA.body.error.code).toBe('CANCELLED');
  });

  it('fails a promise cleanly when the replica running it is killed (kill -9) and its agent opted out of re-runs', async () => {
    const victim = await spawnGateway(config(upstream.url, redis.url));
    const asked = await post(victim.url, '/agents/slowpoke/ask', { query: { text: 'slow stew' } });
    const token = asked.body.promise.token as string;
    await victim.kill();
    // The lease (600 ms) expires and a survivor's sweeper settles the promise: bounded, not forever.
    const started = Date.now();
    const settled = await post(b.url, '/await', { promise_token: token, action: 'checkin', wait_ms: 8000 });
    expect(settled.body._meta.response_type).toBe('failure');
    expect(settled.body.error).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(settled.body.error.message).toMatch(/lost/);
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('runs the call again on a survivor when the agent is marked idempotent', async () => {
    const victim = await spawnGateway(config(upstream.url, redis.url));
    const asked = await post(victim.url, '/agents/retryable/ask', { query: { text: 'slow bread' } });
    const token = asked.body.promise.token as string;
    await victim.kill();
    const settled = await post(a.url, '/await', { promise_token: token, action: 'checkin', wait_ms: 10_000 });
    expect(settled.body._meta.response_type).toBe('answer');
  });

  it('regression "a query agent not marked idempotent loses its promises with its replica" (issue 24): re-run by default, within leaseMs + 2 s of the lease ending', async () => {
    const victim = await spawnGateway(config(upstream.url, redis.url));
    const asked = await post(victim.url, '/agents/searcher/ask', { query: { text: 'slow soup' } });
    expect(asked.status).toBe(202);
    const token = asked.body.promise.token as string;
    await victim.kill();
    const started = Date.now();
    const settled = await post(a.url, '/await', { promise_token: token, action: 'checkin', wait_ms: 10_000 });
    expect(settled.body._meta.response_type).toBe('answer');
    // leaseMs (600) + the sweep's next second + the upstream's own 1.5 s, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(600 + 2_000 + 1_500 + 2_000);
  });

  it('answers 503 while Redis is down and recovers without a restart', async () => {
    await redis.stop();
    const down = await post(a.url, '/ask', { query: { text: 'pasta' } });
    expect(down.status).toBe(503);
    expect(down.body._meta.response_type).toBe('failure');
    expect((await fetch(`${a.url}/readyz`)).status).toBe(503);
    await redis.restart();
    await expect
      .poll(async () => (await post(a.url, '/ask', { query: { text: 'pasta' } })).status, { timeout: 10_000, interval: 250 })
      .toBe(200);
    // Both replicas are still alive and share state again.
    const asked = await post(b.url, '/ask', { query: { text: 'slow cake' } });
    const done = await post(a.url, '/await', { promise_token: asked.body.promise.token, action: 'checkin', wait_ms: 5000 });
    expect(done.body._meta.response_type).toBe('answer');
  });

  it('starts while Redis is still down (a sidecar starting first) and works once it is up', async () => {
    const late = await startRedis();
    await late.stop();
    const early = await spawnGateway(config(upstream.url, late.url));
    try {
      expect((await fetch(`${early.url}/readyz`)).status).toBe(503);
      await late.restart();
      await expect.poll(async () => (await fetch(`${early.url}/readyz`)).status, { timeout: 10_000, interval: 200 }).toBe(200);
      const asked = await post(early.url, '/agents/watched/ask', { query: { text: 'slow start' } });
      expect(asked.status).toBe(202);
      // The cancel subscription was retried in the background: a cancel still aborts the upstream call.
      await post(early.url, '/await', { promise_token: asked.body.promise.token, action: 'cancel' });
      await expect.poll(() => watcher.aborted, { timeout: 3000, interval: 50 }).toContain('slow start');
    } finally {
      await early.stop();
      await late.stop();
    }
  });
});
