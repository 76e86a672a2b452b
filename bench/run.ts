/**
 * `npm run bench`: what the gateway adds, measured against calling the upstream directly in the
 * same run. Starts a real NLWeb v0.55 upstream (in this process), a throwaway redis-server, and two
 * gateway processes (memory store and Redis store); then times sequential requests and counts the
 * Redis round trips per ask (MONITOR, top-level commands only). Prints a table and writes bench/results/latest.json. Never part of `npm test`.
 *
 * Options (env): BENCH_N (requests per scenario, default 300), BENCH_WARMUP (default 30).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { startV055Agent } from '../test/nlweb/agents/v055-agent.ts';
import { REPO_ROOT } from '../test/support/gateway.ts';
import { spawnGateway } from '../test/support/process.ts';
import { startRedis } from '../test/support/redis.ts';

const N = Number(process.env.BENCH_N ?? 300);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 30);

interface Stats { n: number; mean: number; p50: number; p95: number; p99: number }

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { n: s.length, mean: round(s.reduce((a, b) => a + b, 0) / s.length), p50: round(at(0.5)), p95: round(at(0.95)), p99: round(at(0.99)) };
}

async function time(fn: () => Promise<unknown>): Promise<Stats> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return stats(samples);
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (r) => {
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${url} answered ${r.status}: ${text.slice(0, 200)}`);
    return text;
  });

/**
 * Counts the commands clients send to Redis while `fn` runs `n` times, through MONITOR. Commands a
 * Lua script runs inside Redis are reported with source "lua" and are not round trips: they are
 * left out, so the figure is what crosses the network.
 */
async function commandsPer(url: string, n: number, fn: () => Promise<unknown>): Promise<{ perCall: number; byCommand: Record<string, number> }> {
  await fn(); // loads the Lua scripts (EVALSHA misses) outside the measurement
  const counts: Record<string, number> = {};
  const monitorClient = new Redis(url);
  const monitor = await monitorClient.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source === 'lua') return;
    const name = args[0]!.toLowerCase();
    counts[name] = (counts[name] ?? 0) + 1;
  });
  for (let i = 0; i < n; i++) await fn();
  await new Promise((r) => setTimeout(r, 100));
  monitor.disconnect();
  monitorClient.disconnect();
  const byCommand = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / n]));
  return { perCall: Object.values(byCommand).reduce((a, b) => a + b, 0), byCommand };
}

async function main(): Promise<void> {
  const upstream = await startV055Agent({ results: 5 });
  const redisServer = await startRedis();
  // Long leases: the sweeper must not run during the measurement (it would add its own commands).
  const defaults = { promiseAfterMs: 5000, leaseMs: 600_000 };
  const agents = [
    { name: 'up', kind: 'nlweb', url: upstream.url, streaming: false },
    { name: 'upsse', kind: 'nlweb', url: upstream.url },
    // Becomes a promise at once: for the /await measurements.
    { name: 'promised', kind: 'nlweb', url: upstream.url, streaming: false, promiseAfterMs: 20 },
  ];
  const [memGw, redisGw] = await Promise.all([
    spawnGateway({ defaults, agents }),
    spawnGateway({ defaults, agents, store: { kind: 'redis', url: redisServer.url, prefix: 'bench:' } }),
  ]);
  const q = { query: { text: 'pasta' } };
  // A2A 1.0 SendMessage of the same question (docs/a2a.md): JSON-RPC envelope; `.params` is the HTTP+JSON body.
  const a2aSend = () => ({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'pasta' }] } } });
  const a2aHeaders = { 'a2a-version': '1.0' };
  try {
    const conv = JSON.parse(await post(`${redisGw.url}/agents/up/ask`, q))._meta.session_context;
    // A promise that stays running (the upstream hangs) and one that is settled (read within its grace).
    const running = JSON.parse(await post(`${redisGw.url}/agents/promised/ask`, { query: { text: 'hang' } })).promise.token as string;
    const settled = JSON.parse(await post(`${redisGw.url}/agents/promised/ask`, { query: { text: 'slow pasta' } })).promise.token as string;
    await post(`${redisGw.url}/await`, { promise_token: settled, action: 'checkin', wait_ms: 5000 });
    const checkin = (token: string) => () => post(`${redisGw.url}/await`, { promise_token: token, action: 'checkin' });
    const results = {
      when: new Date().toISOString(),
      node: process.version,
      n: N,
      latencyMs: {
        directJson: await time(() => post(`${upstream.url}/ask`, q)),
        gatewayMemoryJson: await time(() => post(`${memGw.url}/agents/up/ask`, q)),
        gatewayRedisJson: await time(() => post(`${redisGw.url}/agents/up/ask`, q)),
        gatewayRedisJsonSecondTurn: await time(() => post(`${redisGw.url}/agents/up/ask`, { ...q, meta: { session_context: conv } })),
        directSse: await time(() => post(`${upstream.url}/ask`, q, { accept: 'text/event-stream' })),
        gatewayRedisSse: await time(() => post(`${redisGw.url}/agents/upsse/ask`, q, { accept: 'text/event-stream' })),
        gatewayRedisAwaitRunning: await time(checkin(running)),
        gatewayRedisAwaitSettled: await time(checkin(settled)),
        gatewayRedisA2aJsonRpc: await time(() => post(`${redisGw.url}/a2a/up`, a2aSend(), a2aHeaders)),
        gatewayRedisA2aRest: await time(() => post(`${redisGw.url}/a2a/up/rest/message:send`, a2aSend().params, a2aHeaders)),
      },
      redisCommandsPerAsk: {
        newConversation: await commandsPer(redisServer.url, 100, () => post(`${redisGw.url}/agents/up/ask`, q)),
        existingConversation: await commandsPer(redisServer.url, 100, () => post(`${redisGw.url}/agents/up/ask`, { ...q, meta: { session_context: conv } })),
        awaitCheckinRunning: await commandsPer(redisServer.url, 100, checkin(running)),
        awaitCheckinSettled: await commandsPer(redisServer.url, 100, checkin(settled)),
        a2aSendMessage: await commandsPer(redisServer.url, 100, () => post(`${redisGw.url}/a2a/up`, a2aSend(), a2aHeaders)),
      },
    };
    const l = results.latencyMs;
    const added = (a: Stats, b: Stats) => ({ p50: Math.round((a.p50 - b.p50) * 1000) / 1000, mean: Math.round((a.mean - b.mean) * 1000) / 1000 });
    const summary = {
      addedLatencyMs: {
        memoryJson: added(l.gatewayMemoryJson, l.directJson),
        redisJson: added(l.gatewayRedisJson, l.directJson),
        redisSse: added(l.gatewayRedisSse, l.directSse),
        redisA2aJsonRpc: added(l.gatewayRedisA2aJsonRpc, l.directJson),
      },
    };
    mkdirSync(`${REPO_ROOT}/bench/results`, { recursive: true });
    writeFileSync(`${REPO_ROOT}/bench/results/latest.json`, JSON.stringify({ ...results, ...summary }, null, 2) + '\n');
    console.log('\nlatency (ms)          n     mean    p50     p95     p99');
    for (const [name, s] of Object.entries(l)) {
      console.log(`${name.padEnd(30)} ${String(s.n).padStart(4)} ${[s.mean, s.p50, s.p95, s.p99].map((x) => x.toFixed(2).padStart(7)).join(' ')}`);
    }
    console.log('\nadded by the gateway (ms):', JSON.stringify(summary.addedLatencyMs));
    console.log('Redis round trips per call (top-level commands; Lua-internal ones excluded):');
    for (const [name, r] of Object.entries(results.redisCommandsPerAsk)) console.log(`  ${name}: ${r.perCall} ${JSON.stringify(r.byCommand)}`);
    console.log('\nwritten to bench/results/latest.json');
  } finally {
    await Promise.all([memGw.stop(), redisGw.stop()]);
    await redisServer.stop();
    await upstream.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
