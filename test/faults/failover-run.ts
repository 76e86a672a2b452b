/**
 * The failover figures (issue "Faults and scale-out" item 2), shared by the test in `npm test` and
 * `npm run failover` (100 promises, printed for docs/reliability.md): two gateway replicas on a
 * Sentinel set (or one Redis with AOF that restarts), N promises running against a slow NLWeb
 * upstream, then the master is killed with SIGKILL. Counts what a team running nlgate would ask.
 */
import { listenRaw, readBody, type TestServer } from '../support/http.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';
import { startRedis } from '../support/redis.ts';
import { startSentinelSet } from '../support/sentinel-set.ts';

export interface FailoverFigures {
  mode: 'sentinel-failover' | 'aof-restart';
  promises: number;
  /** Settled with the upstream's answer. */
  answered: number;
  /** Unknown token, failed, or still running at the end: the promise's answer was lost. */
  lost: number;
  lostDetail: Record<string, number>;
  /** Upstream called more than once for one question (a re-run that duplicated work or an answer). */
  duplicated: number;
  /** Requests (asks, check-ins) answered 503 or refused while the store switched over. */
  failedDuringSwitch: number;
  /** From the kill until an ask succeeds again on every replica. */
  recoveryMs: number;
  /** From the kill until the sentinels named a new master (sentinel mode). */
  failoverMs?: number;
}

/** An NLWeb v0.55 upstream that answers each question after `delayMs`, counting calls per question. */
async function slowUpstream(delayMs: number): Promise<TestServer & { calls: Map<string, number> }> {
  const calls = new Map<string, number>();
  const server = await listenRaw(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { query: { text: string } };
    const q = body.query.text;
    calls.set(q, (calls.get(q) ?? 0) + 1);
    const wait = q.startsWith('probe') ? 0 : delayMs;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ _meta: { response_type: 'answer', version: '0.55' }, results: [{ '@type': 'Thing', name: `answer to ${q}` }] }));
    }, wait);
  });
  return Object.assign(server, { calls });
}

const post = async (url: string, body: unknown): Promise<{ status: number; body: any }> => {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  } catch {
    return { status: 0, body: undefined };
  }
};

/** Runs one failover (or AOF restart) with `count` promises; every process it starts is stopped. */
export async function runFailover(opts: { count: number; delayMs: number; mode: FailoverFigures['mode'] }): Promise<FailoverFigures> {
  const upstream = await slowUpstream(opts.delayMs);
  const set = opts.mode === 'sentinel-failover' ? await startSentinelSet() : undefined;
  const single = set ? undefined : await startRedis({ persistent: true, args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
  const storeUrl = set ? set.url : single!.url;
  const config = {
    store: { kind: 'redis', url: storeUrl },
    agents: [{ name: 'slow', kind: 'nlweb', url: upstream.url, promiseAfterMs: 100, timeoutMs: 60_000, streaming: false }],
  };
  const replicas: GatewayProcess[] = [await spawnGateway(config, { LOG_LEVEL: 'info' }), await spawnGateway(config, { LOG_LEVEL: 'info' })];
  let failedDuringSwitch = 0;
  try {
    const tokens = await Promise.all(
      Array.from({ length: opts.count }, async (_, i) => {
        const r = await post(`${replicas[i % 2]!.url}/ask`, { query: { text: `question ${i}` }, prefer: { streaming: false } });
        if (r.status !== 202) throw new Error(`ask ${i} answered ${r.status}: ${JSON.stringify(r.body)}`);
        return r.body.promise.token as string;
      }),
    );
    const killedAt = Date.now();
    let failoverMs: number | undefined;
    if (set) {
      const oldPort = set.master.port;
      await set.master.kill();
      void set.waitForFailover(oldPort).then(() => (failoverMs = Date.now() - killedAt));
    } else {
      await single!.kill();
      setTimeout(() => void single!.restart(), 1_000);
    }
    // Recovery: every replica's readiness (a store round trip) is back.
    let recoveryMs = -1;
    const recovered = new Set<number>();
    while (recovered.size < replicas.length && Date.now() - killedAt < 60_000) {
      for (const [i, r] of replicas.entries()) {
        if (recovered.has(i)) continue;
        const res = await fetch(`${r.url}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
        if (res?.status === 200) recovered.add(i);
        else failedDuringSwitch++;
      }
      if (recovered.size < replicas.length) await new Promise((r) => setTimeout(r, 100));
    }
    recoveryMs = Date.now() - killedAt;
    // Every promise, checked in on alternate replicas until it settles (or the deadline passes).
    const outcomes = await Promise.all(
      tokens.map(async (token, i) => {
        const deadline = Date.now() + opts.delayMs + 30_000;
        while (Date.now() < deadline) {
          const r = await post(`${replicas[(i + 1) % 2]!.url}/await`, { promise_token: token, action: 'checkin', wait_ms: 2_000 });
          if (r.status === 503 || r.status === 0) {
            failedDuringSwitch++;
            await new Promise((res) => setTimeout(res, 200));
            continue;
          }
          const type = r.body?._meta?.response_type;
          if (type === 'promise') continue;
          if (type === 'answer') return r.body.results?.[0]?.name === `answer to question ${i}` ? 'answered' : 'wrong answer';
          return `${type}:${r.body?.error?.code ?? r.status}`;
        }
        return 'still running';
      }),
    );
    const lostDetail: Record<string, number> = {};
    for (const o of outcomes) if (o !== 'answered') lostDetail[o] = (lostDetail[o] ?? 0) + 1;
    const duplicated = [...upstream.calls.entries()].filter(([q, n]) => q.startsWith('question') && n > 1).length;
    return {
      mode: opts.mode,
      promises: opts.count,
      answered: outcomes.filter((o) => o === 'answered').length,
      lost: opts.count - outcomes.filter((o) => o === 'answered').length,
      lostDetail,
      duplicated,
      failedDuringSwitch,
      recoveryMs,
      ...(failoverMs !== undefined ? { failoverMs } : {}),
    };
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await set?.stop();
    await single?.stop();
    await upstream.close();
  }
}
