/**
 * `npx tsx bench/promises.ts [scenario…]` (issue 25): the promises one request makes in the gateway,
 * per scenario (`bench/lib/scenarios.ts`; default: all of them), counted with `v8.promiseHooks` in the
 * compiled gateway (memory store) while wrk drives it against the static nginx upstream. A count, not
 * a time: each promise is an allocation and a microtask, and unlike CPU time on this VM the count does
 * not move between runs. The gateway is built from the tree first, as in every bench.
 *
 * BENCH_SITES=<n>: one promise in n (at random) has its creating stack taken (source-mapped), and each
 * scenario lists the call sites that made the most, per request: where its promises come from.
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { npmStartFlags, startGateway } from './lib/gateway.ts';
import { drive } from './lib/load.ts';
import { startNginx } from './lib/nginx.ts';
import { profileConfig, specFor } from './lib/scenarios.ts';

const ALL = ['nlweb-json', 'nlip', 'mcp', 'mcp-2026', 'a2a', 'webtool', 'second-turn'];
const COUNTER = fileURLToPath(new URL('./lib/promise-counter.mjs', import.meta.url));
const FILE = join(tmpdir(), `nlgate-promises-${process.pid}`);
const SITES = Number(process.env.BENCH_SITES ?? 0);

/** The counter's report: the promises made and requests served so far and, with BENCH_SITES, where the sampled promises were made (cleared at each report). */
interface Report {
  made: number;
  requests: number;
  sites?: Record<string, number>;
}

async function main(): Promise<void> {
  const scenarios = process.argv.length > 2 ? process.argv.slice(2) : ALL;
  const nginx = await startNginx(1);
  const env = { PROMISE_COUNT_FILE: FILE, ...(SITES > 0 ? { PROMISE_SITES: String(SITES) } : {}) };
  const flags = [...npmStartFlags(), '--import', COUNTER, ...(SITES > 0 ? ['--enable-source-maps'] : [])];
  const gw = await startGateway(profileConfig(nginx.upstreamUrl), 1, env, flags);
  const count = async (): Promise<Report> => {
    rmSync(FILE, { force: true });
    process.kill(gw.pid, 'SIGUSR2');
    for (let i = 0; i < 100; i++) {
      try {
        return JSON.parse(readFileSync(FILE, 'utf8')) as Report;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    throw new Error('the gateway did not report its count');
  };
  try {
    for (const scenario of scenarios) {
      const spec = await specFor(scenario, gw.url);
      await drive({ ...spec, connections: 8, durationS: 1 });
      const before = await count();
      const r = await drive({ ...spec, connections: 8, durationS: 2 });
      const after = await count();
      if (r.errors) throw new Error(`${scenario}: ${r.errors} failed requests`);
      const requests = after.requests - before.requests;
      console.log(`${scenario.padEnd(12)} ${((after.made - before.made) / requests).toFixed(1).padStart(6)} promises a request`);
      const top = Object.entries(after.sites ?? {}).sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.BENCH_TOP ?? 25));
      for (const [where, n] of top) console.log(`  ${((n * SITES) / requests).toFixed(2).padStart(6)}  ${where}`);
    }
  } finally {
    rmSync(FILE, { force: true });
    await gw.stop();
    await nginx.stop();
  }
}

await main();
