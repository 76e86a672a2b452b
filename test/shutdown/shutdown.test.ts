/**
 * Issue 13 item 3: SIGTERM under load loses no promise. Two gateway processes share one real Redis;
 * promises run on A (a real NLWeb v0.55 upstream answering `slow` queries after 1.5 s). On SIGTERM,
 * A turns unready first (while still live), then either finishes its calls and streams within the
 * grace period, or releases their leases so B runs them again at once; either way A exits 0 and
 * every promise is answered.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { parseSseText } from '../support/http.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';

const post = async (base: string, path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

const exitOf = (p: GatewayProcess) =>
  new Promise<number | null>((resolve) => (p.child.exitCode !== null ? resolve(p.child.exitCode) : p.child.once('exit', (code) => resolve(code))));

/** Sum of one metric's samples whose labels include `labels`, from a scrape of `base`. */
async function metric(base: string, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

describeRedis('graceful shutdown of one of two replicas (SIGTERM)', () => {
  let redis: RedisServer;
  let upstream: Awaited<ReturnType<typeof startV055Agent>>;
  /** Slower than the shutdown delay plus the grace: A cannot finish these calls itself. */
  let slower: Awaited<ReturnType<typeof startV055Agent>>;
  let b: GatewayProcess;
  const spawned: GatewayProcess[] = [];
  // A long lease: without the release at shutdown, B would only take A's promises over after it.
  const config = (server: Record<string, unknown>) => ({
    server,
    store: { kind: 'redis', url: redis.url, prefix: 'shutdown:' },
    defaults: { promiseAfterMs: 100, leaseMs: 60_000 },
    agents: [
      { name: 'retryable', kind: 'nlweb', url: upstream.url, streaming: false, idempotent: true },
      { name: 'patient', kind: 'nlweb', url: slower.url, streaming: false, idempotent: true },
    ],
  });

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startV055Agent({ slowMs: 1500 });
    slower = await startV055Agent({ slowMs: 5000 });
    b = await spawnGateway(config({}));
  }, 60_000);
  afterEach(async () => {
    await Promise.all(spawned.splice(0).map((p) => p.kill()));
  });
  afterAll(async () => {
    await b?.stop();
    await upstream?.close();
    await slower?.close();
    await redis?.stop();
  });

  it('past the grace period, releases its running promises: B runs them again at once, none is lost, A exits 0', async () => {
    const a = await spawnGateway(config({ shutdownGraceMs: 200, shutdownDelayMs: 1500 }));
    spawned.push(a);
    const asked = await Promise.all(Array.from({ length: 6 }, (_, i) => post(a.url, '/agents/patient/ask', { query: { text: `slow dish ${i}` } })));
    expect(asked.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202]);
    const reranBefore = await metric(b.url, 'nlgate_promises_total', { state: 'rerun' });
    const exited = exitOf(a);
    a.child.kill('SIGTERM');
    // Unready first, while still alive and serving: a load balancer stops sending before it stops accepting.
    await expect.poll(async () => (await fetch(`${a.url}/readyz`)).status, { timeout: 5000, interval: 50 }).toBe(503);
    expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
    expect(await exited).toBe(0);
    expect(a.output()).toMatch(/"released":6/);
    // Every promise is answered through B, well inside the 60 s lease A held.
    const answers = await Promise.all(
      asked.map((r) => post(b.url, '/await', { promise_token: r.body.promise.token, action: 'checkin', wait_ms: 15_000 })),
    );
    expect(answers.map((r) => r.body._meta.response_type)).toEqual(['answer', 'answer', 'answer', 'answer', 'answer', 'answer']);
    expect((await metric(b.url, 'nlgate_promises_total', { state: 'rerun' })) - reranBefore).toBe(6);
  }, 60_000);

  it('within the grace period, finishes its open stream and its promises itself, then exits 0', async () => {
    const a = await spawnGateway(config({ shutdownGraceMs: 15_000 }));
    spawned.push(a);
    const asked = await Promise.all(Array.from({ length: 4 }, (_, i) => post(a.url, '/agents/retryable/ask', { query: { text: `slow soup ${i}` } })));
    expect(asked.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    const reranBefore = await metric(b.url, 'nlgate_promises_total', { state: 'rerun' });
    const stream = await fetch(`${a.url}/agents/retryable/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: { text: 'slow stew' }, prefer: { streaming: true } }),
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const exited = exitOf(a);
    a.child.kill('SIGTERM');
    // The stream already open runs to its `complete`.
    const events = parseSseText(await stream.text());
    expect(events.at(-1)?.event).toBe('complete');
    expect(events.some((e) => e.event === 'result')).toBe(true);
    expect(await exited).toBe(0);
    expect(a.output()).toMatch(/"released":0/);
    const answers = await Promise.all(asked.map((r) => post(b.url, '/await', { promise_token: r.body.promise.token, action: 'checkin' })));
    expect(answers.map((r) => r.body._meta.response_type)).toEqual(['answer', 'answer', 'answer', 'answer']);
    expect(await metric(b.url, 'nlgate_promises_total', { state: 'rerun' })).toBe(reranBefore);
  }, 60_000);
});
