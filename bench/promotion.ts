/**
 * `npm run bench:promotion [scenario…]` (issue 25): what each request leaves to the garbage
 * collector's old generation. One gateway (compiled dist/, `npm start`'s flags, memory store) runs
 * with V8's `--trace-gc-nvp`; wrk drives each scenario (`bench/lib/scenarios.ts`; default:
 * nlweb-json, nlip, webtool, a2a, mcp, mcp-2026) for BENCH_DURATION seconds (default 8) from 32
 * connections, and the scavenges logged meanwhile are summed per request (counted by access lines):
 * their pause, the bytes they promoted to the old generation, and the bytes they copied within the
 * young one.
 *
 * Why: a scavenge costs what survives it, not what was allocated. A request whose objects are still
 * reachable at two scavenges is copied twice and promoted, and then costs a major collection too;
 * `npm run bench:alloc` shows who allocates (BENCH_ALLOC_SURVIVORS=1: whose objects outlived the
 * young generation), this shows how much. Timing figures move with the hour; the bytes do not.
 * Not part of `npm test`; nothing asserts a figure.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildOnce, npmStartFlags } from './lib/gateway.ts';
import { drive } from './lib/load.ts';
import { startNginx } from './lib/nginx.ts';
import { profileConfig, specFor } from './lib/scenarios.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const DEFAULT = ['nlweb-json', 'nlip', 'webtool', 'a2a', 'mcp', 'mcp-2026'];

interface Tally {
  requests: number;
  scavenges: number;
  pauseMs: number;
  promoted: number;
  survived: number;
}

/** Adds one `--trace-gc-nvp` line of a scavenge (`gc=s`) to `t`. */
function addScavenge(t: Tally, line: string): void {
  const field = (name: string) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
  t.scavenges++;
  t.pauseMs += field('pause');
  t.promoted += field('promoted');
  t.survived += field('new_space_survived');
}

async function main(): Promise<void> {
  const scenarios = process.argv.length > 2 ? process.argv.slice(2) : DEFAULT;
  const nginx = await startNginx(1);
  const dir = mkdtempSync(join(tmpdir(), 'nlgate-promotion-'));
  const config = join(dir, 'config.yaml');
  // No idle release: its full collections would land in a scenario's window.
  writeFileSync(config, stringify({ ...profileConfig(nginx.upstreamUrl), server: { idleReleaseMs: 0 } }));
  const child = spawn(process.execPath, [...npmStartFlags(), '--trace-gc-nvp', buildOnce(), 'serve', '--config', config], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let current: Tally | undefined;
  let pending = '';
  let resolveUrl!: (url: string) => void;
  const url = new Promise<string>((resolve) => (resolveUrl = resolve));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const listening = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(line);
      if (listening) resolveUrl(listening[1]!);
      if (!current) continue;
      if (line.includes(' gc=s ')) addScavenge(current, line);
      else if (line.includes('"msg":"request"')) current.requests++;
    }
  });
  try {
    const base = await url;
    console.log(`Node ${process.version}, ${DURATION} s a scenario, 32 connections, memory store\n`);
    console.log('scenario      requests  scavenges  pause µs/req  promoted B/req  copied B/req');
    for (const scenario of scenarios) {
      const spec = await specFor(scenario, base);
      const tally: Tally = { requests: 0, scavenges: 0, pauseMs: 0, promoted: 0, survived: 0 };
      current = tally;
      await drive({ ...spec, connections: 32, durationS: DURATION });
      // The last access lines and scavenge lines of the window are written after wrk returns.
      await new Promise((r) => setTimeout(r, 300));
      current = undefined;
      const per = (x: number) => (tally.requests ? x / tally.requests : NaN);
      console.log(
        `${scenario.padEnd(12)} ${String(tally.requests).padStart(9)} ${String(tally.scavenges).padStart(10)} ${(per(tally.pauseMs) * 1000).toFixed(1).padStart(13)} ${per(tally.promoted).toFixed(0).padStart(15)} ${per(tally.survived).toFixed(0).padStart(13)}`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await nginx.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
