import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/gateway.ts';
import { spawnListening, type Listening } from '../support/spawn-url.ts';

/** The command names of `pid`'s child processes, read from /proc (Linux, as CI). */
function childrenOf(pid: number): string[] {
  const names: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after the last ')'.
      const close = stat.lastIndexOf(')');
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (ppid === pid) names.push(stat.slice(stat.indexOf('(') + 1, close));
    } catch {
      // the process ended while being read
    }
  }
  return names;
}

/**
 * Regression (issue 25): a gateway run from a clone (`npm start`) bundles the console with esbuild
 * shortly after start-up, and esbuild's service process then stayed beside it for the gateway's whole
 * life (18 MiB of RSS against its own 82). The bundle is now made in a worker thread that stops its
 * own service. The gateway runs compiled, as `npm start` runs it: under tsx, tsx's own esbuild
 * service would be a child too.
 */
describe('the console bundled from source leaves no esbuild process behind', () => {
  const dist = `.nlgate-test-dist-console-${process.pid}`;
  let gw: Listening;
  beforeAll(async () => {
    await new Promise<void>((resolve, reject) => {
      const b = spawn(process.execPath, ['scripts/build.mjs', dist], { cwd: REPO_ROOT, stdio: 'inherit' });
      b.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build exited ${code}`))));
    });
    // `npm start`'s gateway: the embedded default config, from the compiled CLI one level down like dist/.
    gw = await spawnListening([`${dist}/cli.js`, 'serve'], { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    rmSync(join(REPO_ROOT, dist), { recursive: true, force: true });
  });

  it('serves the bundle, and then the gateway has no esbuild child', async () => {
    const js = await fetch(`${gw.url}/console/assets/app.js`);
    expect(js.status).toBe(200);
    const body = await js.text();
    // Minified Preact: a real bundle, not an empty answer.
    expect(body.length).toBeGreaterThan(10_000);
    const css = await fetch(`${gw.url}/console/assets/styles.css`);
    expect(css.status).toBe(200);
    expect((await css.text()).length).toBeGreaterThan(100);
    // The service exits once its worker stops it; allow it a moment.
    const pid = gw.child.pid!;
    const deadline = Date.now() + 10_000;
    while (childrenOf(pid).some((n) => n.includes('esbuild')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(childrenOf(pid).filter((n) => n.includes('esbuild'))).toEqual([]);
  }, 30_000);
});
