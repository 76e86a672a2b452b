/**
 * Races (issue "Faults and scale-out", item 5), through two gateway replicas on one real Redis:
 * complete versus cancel 1,000 times — exactly one end state each time and the cancelling client
 * told the truth; and two replicas racing to take over the same lost promise — exactly one re-run.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newToken } from '../../src/core/ids.ts';
import { ownerTag } from '../../src/core/ownership.ts';
import { anonymousPrincipal } from '../../src/core/principal.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { createStore } from '../../src/store/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { listenRaw, readBody, type TestServer } from '../support/http.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';

const RACES = 1_000;
const BATCH = 50;

/** Answers every question after 40–60 ms, counting calls per question. */
async function jitteryUpstream(): Promise<TestServer & { calls: Map<string, number> }> {
  const calls = new Map<string, number>();
  const server = await listenRaw(async (req, res) => {
    const q = (JSON.parse(await readBody(req)) as { query: { text: string } }).query.text;
    calls.set(q, (calls.get(q) ?? 0) + 1);
    setTimeout(() => res.end(JSON.stringify({ _meta: { response_type: 'answer', version: '0.55' }, results: [{ '@type': 'Thing', name: q }] })), 40 + Math.random() * 20);
  });
  return Object.assign(server, { calls });
}

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as { _meta: { response_type: string }; promise?: { token: string }; error?: { code: string }; results?: Array<{ name: string }> };
};

describeRedis('races between two replicas', () => {
  let redis: RedisServer;
  let upstream: Awaited<ReturnType<typeof jitteryUpstream>>;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await jitteryUpstream();
    const config = {
      store: { kind: 'redis', url: redis.url, prefix: 'races:' },
      // Renewed every leaseMs / 3: long enough that a loaded machine does not lose live leases.
      defaults: { leaseMs: 2_000 },
      // Thousands of requests from one test client: far above the default gateway-wide limit.
      limits: { gatewayRateLimit: { requests: 1_000_000, windowMs: 60_000 } },
      agents: [{ name: 'jittery', kind: 'nlweb', url: upstream.url, streaming: false, promiseAfterMs: 10, idempotent: true }],
    };
    [a, b] = await Promise.all([startGateway(config, { replicaId: 'replica-a' }), startGateway(config, { replicaId: 'replica-b' })]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await upstream?.close();
    await redis?.stop();
  });

  it(`complete versus cancel ${RACES} times: one end state each, seen alike on both replicas, the canceller told the truth`, async () => {
    const seen = { cancelled: 0, answered: 0 };
    for (let start = 0; start < RACES; start += BATCH) {
      await Promise.all(
        Array.from({ length: BATCH }, async (_, k) => {
          const q = `race ${start + k}`;
          const asked = await post(`${a.url}/ask`, { query: { text: q }, prefer: { streaming: false } });
          expect(asked._meta.response_type).toBe('promise');
          const token = asked.promise!.token;
          // Cancel on the other replica around the moment the upstream answers.
          await new Promise((r) => setTimeout(r, 30 + Math.random() * 40));
          const cancel = await post(`${b.url}/await`, { promise_token: token, action: 'cancel' });
          const [fromA, fromB] = await Promise.all([
            post(`${a.url}/await`, { promise_token: token, action: 'checkin', wait_ms: 2_000 }),
            post(`${b.url}/await`, { promise_token: token, action: 'checkin', wait_ms: 2_000 }),
          ]);
          // Exactly one end state, the same wherever it is read.
          expect(fromA).toEqual(fromB);
          if (cancel._meta.response_type === 'failure' && cancel.error?.code === 'CANCELLED') {
            expect(fromA).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'CANCELLED' } });
            seen.cancelled++;
          } else {
            // The answer won: the canceller was told the answer, not that it cancelled.
            expect(cancel).toMatchObject({ _meta: { response_type: 'answer' }, results: [{ name: q }] });
            expect(fromA).toMatchObject({ _meta: { response_type: 'answer' }, results: [{ name: q }] });
            seen.answered++;
          }
        }),
      );
    }
    expect(seen.cancelled + seen.answered).toBe(RACES);
    // Both outcomes happened: the race was a race.
    expect(seen.cancelled).toBeGreaterThan(0);
    expect(seen.answered).toBeGreaterThan(0);
  }, 240_000);

  it('two replicas racing to take over the same lost promises: exactly one re-run each', async () => {
    // Promises whose runner died: leases already expired, owned by a replica that no longer exists.
    const store = await createStore({ kind: 'redis', url: redis.url, prefix: 'races:' }, silentLogger);
    const now = Date.now();
    const questions = Array.from({ length: 50 }, (_, i) => `lost ${i}`);
    const tokens = await Promise.all(
      questions.map(async (q) => {
        const token = newToken('prm');
        await store.createPromise(
          // Owned by the anonymous caller on 127.0.0.1, as an /ask from this test would have made it.
          { token, agent: 'jittery', status: 'running', owner: 'replica-dead', leaseUntil: now - 1, createdAt: now, updatedAt: now, request: { query: { text: q } }, principal: ownerTag(anonymousPrincipal('127.0.0.1')) },
          60_000,
        );
        return token;
      }),
    );
    await store.close();
    // Both sweepers (every leaseMs / 2) find them; each is claimed, and run, by exactly one.
    const answers = await Promise.all(tokens.map((t, i) => post(`${(i % 2 ? a : b).url}/await`, { promise_token: t, action: 'checkin', wait_ms: 5_000 })));
    answers.forEach((ans, i) => expect(ans).toMatchObject({ _meta: { response_type: 'answer' }, results: [{ name: questions[i] }] }));
    for (const q of questions) expect({ q, calls: upstream.calls.get(q) }).toEqual({ q, calls: 1 });
  }, 60_000);

  it('an MCP session\'s GET stream opened through both replicas at once: exactly one stream, the rest 409 (regression: the check and the claim were two store calls)', async () => {
    const init = await fetch(`${a.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'race', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    const headers = { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const opened = await Promise.all(Array.from({ length: 8 }, (_, i) => fetch(`${(i % 2 ? a : b).url}/mcp`, { headers })));
    try {
      expect(opened.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    } finally {
      await Promise.all(opened.map((r) => r.body?.cancel()));
    }
  });
});
