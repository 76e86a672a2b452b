/**
 * `npm run bench:profile [scenario]`: one gateway (compiled dist/, memory store unless
 * `BENCH_STORE=redis`) under `node --cpu-prof`, driven by wrk for BENCH_DURATION seconds (default 5)
 * on one scenario against the static nginx upstream, then the profile's top frames by self and by
 * inclusive time. The profile is kept in bench/results/profiles/ for Chrome DevTools.
 * Scenarios: nlweb-json (default), nlweb-sse, nlip, mcp (a 2025-11-25 session), mcp-2026 (stateless
 * 2026-07-28), a2a (A2A 1.0 JSON-RPC SendMessage), webtool, second-turn.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startRedis } from '../test/support/redis.ts';
import { startGateway } from './lib/gateway.ts';
import { drive } from './lib/load.ts';
import { startNginx } from './lib/nginx.ts';
import { inclusiveFrames, topFrames } from './lib/profile-summary.ts';
import { profileConfig, specFor } from './lib/scenarios.ts';

const SCENARIO = process.argv[2] ?? 'nlweb-json';
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
async function main(): Promise<void> {
  const dir = new URL('./results/profiles/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const before = new Set(readdirSync(dir));
  const nginx = await startNginx(1);
  const redis = process.env.BENCH_STORE === 'redis' ? await startRedis() : undefined;
  const config = profileConfig(nginx.upstreamUrl, redis?.url);
  const gw = await startGateway(config, 1, process.env.LOG_LEVEL ? { LOG_LEVEL: process.env.LOG_LEVEL } : {}, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  try {
    const spec = await specFor(SCENARIO, gw.url);
    await drive({ ...spec, connections: 32, durationS: 1 });
    const r = await drive({ ...spec, connections: 32, durationS: DURATION });
    console.log(`${SCENARIO} (${gw.runner}${redis ? ', redis' : ', memory'}): ${r.rps} req/s p50 ${r.p50Ms} ms p99 ${r.p99Ms} ms errors ${r.errors}`);
  } finally {
    await gw.stop();
    await Promise.all([nginx.stop(), redis?.stop()]);
  }
  const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const path = join(dir, file);
  console.log(`\nprofile: ${path}\n\nself time\n${topFrames(path, Number(process.env.TOP ?? 30)).join('\n')}`);
  console.log(`\ninclusive\n${inclusiveFrames(path, Number(process.env.TOP ?? 40)).join('\n')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
