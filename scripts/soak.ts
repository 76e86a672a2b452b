/**
 * `npm run soak` (issue "Faults and scale-out" item 6): a mix of protocols at a steady rate through
 * one gateway process on Redis, for SOAK_MINUTES (default 10). Every 10 s it samples the gateway's
 * RSS, event-loop delay and open handles (from its /metrics when served, else RSS from /proc and the
 * /healthz round trip) and the Redis key count; at the end it prints the slope of each after warm-up
 * and exits 1 when one keeps growing (more than SOAK_TOLERANCE, default 10 %, from the first to the
 * last third after warm-up). The rate: SOAK_RPS, else half the NLWeb pass-through figure of
 * bench/results/latest.json, else 200 requests/s.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { startV055Agent } from '../test/nlweb/agents/v055-agent.ts';
import { spawnGateway } from '../test/support/process.ts';
import { startRedis } from '../test/support/redis.ts';
import { slope, trend, type Sample } from './soak-stats.ts';

const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const tolerance = Number(process.env.SOAK_TOLERANCE ?? 0.1);
const sampleMs = Number(process.env.SOAK_SAMPLE_MS ?? 10_000);
const rps = Number(process.env.SOAK_RPS ?? benchRate() ?? 200);

function benchRate(): number | undefined {
  const file = new URL('../bench/results/latest.json', import.meta.url);
  if (!existsSync(file)) return undefined;
  try {
    const text = readFileSync(file, 'utf8');
    const m = /"requestsPerSecond"\s*:\s*([\d.]+)/.exec(text) ?? /"rps"\s*:\s*([\d.]+)/.exec(text);
    return m ? Math.round(Number(m[1]) / 2) : undefined;
  } catch {
    return undefined;
  }
}

const redis = await startRedis();
const upstream = await startV055Agent();
const gw = await spawnGateway(
  {
    store: { kind: 'redis', url: redis.url, prefix: 'soak:' },
    defaults: { promiseAfterMs: 50, conversationIdleTtlMs: 60_000, promiseTtlMs: 60_000, promiseReadGraceMs: 5_000 },
    agents: [
      { name: 'news', kind: 'nlweb', url: upstream.url, streaming: false },
      { name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' },
    ],
  },
  { LOG_LEVEL: 'info' },
);
const admin = new Redis(redis.port);
console.log(`soak: ${minutes} min at ${rps} requests/s through ${gw.url} (pid ${gw.child.pid})`);

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
let conversation: string | undefined;
let n = 0;
/** One request of the mix: every inbound protocol, a conversation's next turn, and a promise check-in. */
async function one(): Promise<void> {
  const i = n++;
  const q = ['pasta', 'soup', 'curry', 'salad', 'bread'][i % 5]!;
  switch (i % 7) {
    case 0:
      return void (await fetch(`${gw.url}/agents/news/ask`, json({ query: { text: q } }))).text();
    case 1:
      return void (await fetch(`${gw.url}/agents/recipes/ask`, { ...json({ query: { text: q }, prefer: { streaming: true } }), headers: { 'content-type': 'application/json', accept: 'text/event-stream' } })).text();
    case 2:
      return void (await fetch(`${gw.url}/agents/recipes/nlip/`, json({ format: 'text', subformat: 'english', content: q }))).text();
    case 3:
      return void (await fetch(`${gw.url}/webtools/recipes`, json({ action: 'ask', request: { query: { text: q } } }))).text();
    case 4: {
      const res = await fetch(`${gw.url}/agents/recipes/ask`, json({ query: { text: q }, ...(conversation ? { meta: { session_context: { conversation_id: conversation } } } : {}) }));
      const body = (await res.json()) as { _meta?: { session_context?: { conversation_id?: string } } };
      // A new conversation every 50 turns: old ones must expire, not pile up.
      conversation = i % 350 === 4 ? undefined : body._meta?.session_context?.conversation_id;
      return;
    }
    case 5: {
      const res = await fetch(`${gw.url}/agents/news/ask`, json({ query: { text: `slow ${q}` } }));
      const body = (await res.json()) as { promise?: { token: string } };
      if (body.promise) await (await fetch(`${gw.url}/await`, json({ promise_token: body.promise.token, action: 'checkin', wait_ms: 1_000 }))).text();
      return;
    }
    default:
      return void (await fetch(`${gw.url}/agents`)).text();
  }
}

/** Reads one series from a Prometheus text exposition, if the gateway serves /metrics. */
async function metric(text: string | undefined, name: string): Promise<number | undefined> {
  const m = text ? new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)`, 'm').exec(text) : null;
  return m ? Number(m[1]) : undefined;
}

async function sample(t: number): Promise<Sample> {
  const metricsText = await fetch(`${gw.url}/metrics`).then((r) => (r.ok ? r.text() : undefined)).catch(() => undefined);
  const status = readFileSync(`/proc/${gw.child.pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const t0 = performance.now();
  await fetch(`${gw.url}/healthz`).then((r) => r.text());
  const healthMs = performance.now() - t0;
  return {
    t,
    rssMb: rssKb / 1024,
    eventLoopDelayMs: ((await metric(metricsText, 'nodejs_eventloop_lag_p99_seconds')) ?? healthMs / 1000) * 1000,
    handles: (await metric(metricsText, 'nodejs_active_handles_total')) ?? Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? 0),
    redisKeys: await admin.dbsize(),
  };
}

const samples: Sample[] = [];
const started = Date.now();
const end = started + minutes * 60_000;
let errors = 0;
let inFlight = 0;
const tick = setInterval(() => {
  // Open loop: the rate holds even when answers slow down, bounded by 256 requests in flight.
  for (let k = 0; k < rps / 20 && inFlight < 256; k++) {
    inFlight++;
    void one()
      .catch(() => errors++)
      .finally(() => inFlight--);
  }
}, 50);
while (Date.now() < end) {
  await new Promise((r) => setTimeout(r, Math.min(sampleMs, end - Date.now())));
  const s = await sample((Date.now() - started) / 1000);
  samples.push(s);
  console.log(`t=${s.t.toFixed(0)}s rss=${s.rssMb.toFixed(1)}MB eld=${s.eventLoopDelayMs.toFixed(1)}ms handles=${s.handles} redisKeys=${s.redisKeys} requests=${n} errors=${errors}`);
}
clearInterval(tick);

const warm = samples.slice(Math.floor(samples.length / 5));
let grew = false;
for (const key of ['rssMb', 'eventLoopDelayMs', 'handles', 'redisKeys'] as const) {
  const t = trend(warm, key);
  const verdict = t.growth > tolerance ? 'GROWS' : 'flat';
  if (verdict === 'GROWS' && key !== 'eventLoopDelayMs') grew = true;
  console.log(`${key}: slope ${slope(warm, key).toFixed(4)}/s, first third ${t.first.toFixed(1)}, last third ${t.last.toFixed(1)} (${(t.growth * 100).toFixed(1)} %): ${verdict}`);
}
console.log(`requests: ${n}, errors: ${errors}`);
admin.disconnect();
await gw.stop();
await upstream.close();
await redis.stop();
process.exit(grew ? 1 : 0);
