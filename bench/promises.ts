/**
 * `npx tsx bench/promises.ts [scenario…]` (issue 25): the promises one request makes in the gateway,
 * per scenario (`bench/lib/scenarios.ts`; default: all of them), counted with `v8.promiseHooks` in the
 * compiled gateway (memory store) while wrk drives it against the static nginx upstream. A count, not
 * a time: each promise is an allocation and a microtask, and unlike CPU time on this VM the count does
 * not move between runs. The gateway is built from the tree first, as in every bench.
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

async function main(): Promise<void> {
  const scenarios = process.argv.length > 2 ? process.argv.slice(2) : ALL;
  const nginx = await startNginx(1);
  const gw = await startGateway(profileConfig(nginx.upstreamUrl), 1, { PROMISE_COUNT_FILE: FILE }, [...npmStartFlags(), '--import', COUNTER]);
  const count = async (): Promise<number> => {
    rmSync(FILE, { force: true });
    process.kill(gw.pid, 'SIGUSR2');
    for (let i = 0; i < 100; i++) {
      try {
        return Number(readFileSync(FILE, 'utf8'));
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
      const made = (await count()) - before;
      if (r.errors) throw new Error(`${scenario}: ${r.errors} failed requests`);
      console.log(`${scenario.padEnd(12)} ${(made / (r.rps * 2)).toFixed(1).padStart(6)} promises a request`);
    }
  } finally {
    rmSync(FILE, { force: true });
    await gw.stop();
    await nginx.stop();
  }
}

await main();
