/**
 * `npx tsx bench/edge.ts`: the CPU cost the edge middleware (src/edge) adds to one request, in
 * process: a trivial route with and without the edge in front, interleaved rounds so machine load
 * hits both alike. Memory store (the gateway-wide limiter runs, far above its limit).
 */
import { Hono } from 'hono';
import { builtinBindings } from '../src/bindings/index.ts';
import { renderNlwebError } from '../src/bindings/nlweb-http/render/index.ts';
import { LimitsSchema, ServerConfigSchema } from '../src/config/schema.ts';
import { silentLogger } from '../src/base/logger.ts';
import { createEdge } from '../src/edge/index.ts';
import { MemoryStore } from '../src/store/memory.ts';

const N = Number(process.env.BENCH_N ?? 20_000);
const ROUNDS = 5;
const store = new MemoryStore();
const limits = LimitsSchema.parse({ gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 } });
const auth = { apiKeys: [{ principal: 'alice', key: 'alice-key-0123456789abcdef' }], jwt: [] };

function app(withEdge: boolean): Hono {
  const a = new Hono();
  if (withEdge) {
    const edge = createEdge({ server: ServerConfigSchema.parse({}), limits, auth, bindings: builtinBindings, store, log: silentLogger, fallback: renderNlwebError });
    a.use('*', edge.middleware);
  }
  a.post('/ask', (c) => c.json({ ok: true }));
  return a;
}

async function run(a: Hono, headers: Record<string, string>): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < N; i++) await a.request('/ask', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
  return ((performance.now() - t) * 1000) / N;
}

const plain = app(false);
const edged = app(true);
const result: Record<string, number[]> = { none: [], anonymous: [], apiKey: [] };
for (let r = 0; r < ROUNDS; r++) {
  result.none!.push(await run(plain, {}));
  result.anonymous!.push(await run(edged, {}));
  result.apiKey!.push(await run(edged, { authorization: 'Bearer alice-key-0123456789abcdef' }));
}
const best = (xs: number[]) => Math.min(...xs).toFixed(1);
console.log(`µs per request (best of ${ROUNDS} rounds of ${N}): no edge ${best(result.none!)}, edge anonymous ${best(result.anonymous!)}, edge with API key ${best(result.apiKey!)}`);
await store.close();
