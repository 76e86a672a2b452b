/**
 * A replica gives V8's spare heap back once traffic stops (src/runtime/idle-release.ts; issues 23
 * and 25): `nlgate serve` in its own process, loaded by real HTTP asks. Nothing here asserts a timing: the checks are on what the replica
 * logs at debug (that it released, RSS before and after) and on when it did (never while serving).
 */
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';

const CATALOG_AGENT = { name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' };
const RELEASED = /"rssBeforeMiB":(\d+),"rssAfterMiB":(\d+),"ms":\d+[^\n]*memory returned to the system/g;
const config = { server: { idleReleaseMs: 200 }, limits: { gatewayRateLimit: { requests: 1_000_000, windowMs: 60_000 } }, agents: [CATALOG_AGENT] };

const releases = (gw: GatewayProcess) => [...gw.output().matchAll(RELEASED)].map((m) => ({ before: Number(m[1]), after: Number(m[2]) }));

/** First-turn asks, 16 at a time, until `ms` have passed; returns how many were answered 200. */
async function askFor(url: string, ms: number): Promise<number> {
  const dispatcher = new Agent({ connections: 16 });
  const end = Date.now() + ms;
  let ok = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (Date.now() < end) {
        const res = await request(`${url}/agents/recipes/ask`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'pasta' }, prefer: { streaming: false } }) });
        await res.body.text();
        if (res.statusCode === 200) ok++;
      }
    }),
  );
  await dispatcher.close();
  return ok;
}

describe('idle memory release (nlgate serve)', () => {
  let gw: GatewayProcess | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  // Node as `npm start` and the image run it (no --expose-gc: the collector comes from a new
  // context), and with --expose-gc (the global one).
  for (const [how, nodeOptions] of [['without --expose-gc', ''], ['with --expose-gc', '--expose-gc']] as const) {
    it(`releases after start-up and after load, never while serving, and RSS goes down each time (${how})`, async () => {
      gw = await spawnGateway(config, { LOG_LEVEL: 'debug', NODE_OPTIONS: nodeOptions });
      // Start-up's garbage goes at the first quiet look.
      await gw.waitForOutput(RELEASED, 1);
      const atStart = releases(gw).length;
      // Under load no look is quiet: no release while asks keep coming, however long it runs
      // (eight periods here, past the six a release must wait after the last).
      const answered = await askFor(gw.url, 1600);
      expect(answered).toBeGreaterThan(100);
      expect(releases(gw)).toHaveLength(atStart);
      // Once the load stops, the replica gives back what it grew.
      await gw.waitForOutput(RELEASED, atStart + 1);
      for (const { before, after } of releases(gw)) expect(after).toBeLessThan(before);
      expect(gw.output()).not.toContain('idle memory release is off');
    }, 60_000);
  }

  it('never releases with server.idleReleaseMs: 0', async () => {
    gw = await spawnGateway({ ...config, server: { idleReleaseMs: 0 } }, { LOG_LEVEL: 'debug' });
    await askFor(gw.url, 300);
    await new Promise((r) => setTimeout(r, 1500));
    expect(releases(gw)).toHaveLength(0);
  }, 60_000);
});
