/**
 * `npm run bench:compose` (issue 23): what one gateway container of the shipped docker-compose.yml
 * holds, idle, right after load and once quiet again, beside the target (≤ 150 MiB). The stack runs as shipped (WORKERS=auto,
 * the Redis store, nginx in front) with one change: the gateway-wide rate limit is lifted in a copy
 * of deploy/gateway.yaml mounted in its place, because the load comes from one address. The load:
 * COMPOSE_ASKS (10,000) first-turn `/ask` through nginx from 32 connections.
 *
 * Per container: `docker stats` (the cgroup's memory less its page cache, what an orchestrator's
 * limit is held against) and, per process inside it (the cluster primary and its workers), RSS and
 * its private part (`RssAnon`: the node binary's pages are shared by every process of the image).
 * Writes bench/results/compose.json. Needs a Docker daemon (on the development machine, the one
 * .ci/run starts with local stand-ins for the base images); without one it says so and exits 0.
 * Not part of `npm test`.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { freePort } from '../test/support/redis.ts';
import { SETTLED_MS } from './lib/gateway.ts';
import { firstTurnAsks } from './lib/load.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const ASKS = Number(process.env.COMPOSE_ASKS ?? 10_000);
const TARGET_MIB = 150;
/** After the load: past the 30 s a worker waits between two releases, and two looks more. */
const AFTER_LOAD_QUIET_MS = 40_000;
const PROJECT = `nlgate-bench-${process.pid}`;
const GATEWAYS = ['gateway-a', 'gateway-b'];
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (spawnSync('docker', ['info'], { stdio: 'ignore' }).status !== 0) {
  console.log('no Docker daemon answers `docker info`: nothing measured');
  process.exit(0);
}
const composeCmd = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0 ? ['docker', 'compose'] : ['docker-compose'];

const lifted = join(ROOT, `.nlgate-compose-bench-${process.pid}.yaml`);
const override = join(ROOT, `.nlgate-compose-bench-${process.pid}.override.yml`);
const config = parse(readFileSync(join(ROOT, 'deploy/gateway.yaml'), 'utf8')) as Record<string, unknown>;
writeFileSync(lifted, stringify({ ...config, limits: { gatewayRateLimit: { requests: 10_000_000, windowMs: 60_000 } } }));
const mount = { volumes: [`${lifted}:/app/deploy/gateway.yaml:ro`] };
writeFileSync(override, stringify({ services: Object.fromEntries(GATEWAYS.map((g) => [g, mount])) }));
const port = await freePort();
const compose = (...args: string[]) =>
  run(composeCmd[0]!, [...composeCmd.slice(1), '-p', PROJECT, '-f', 'docker-compose.yml', '-f', override, ...args], {
    cwd: ROOT,
    env: { ...process.env, NLGATE_PORT: String(port) },
    timeout: 900_000,
    maxBuffer: 64 * 1024 * 1024,
  });

/** docker stats' memory figure of a container, in MiB. */
async function containerMiB(service: string): Promise<number> {
  const id = (await compose('ps', '-q', service)).stdout.trim();
  const usage = (await run('docker', ['stats', '--no-stream', '--format', '{{.MemUsage}}', id])).stdout.trim().split(' / ')[0]!;
  const m = usage.match(/^([\d.]+)\s*([KMG]i?B)$/)!;
  return Number(m[1]) * ({ KiB: 1 / 1024, KB: 1 / 1024, MiB: 1, MB: 1, GiB: 1024, GB: 1024 } as Record<string, number>)[m[2]!]!;
}

/** RSS and RssAnon of each node process inside a container, in MiB. */
async function processes(service: string): Promise<Array<{ pid: number; rssMiB: number; anonMiB: number }>> {
  // Node names its main thread `MainThread`, so node processes are found by their command line.
  const script = 'for d in /proc/[0-9]*; do tr "\\0" " " <"$d/cmdline" 2>/dev/null | grep -qE "^(\\S*/)?node " && echo "$d/ $(grep -E "^(VmRSS|RssAnon):" "$d/status" | tr -s " " | tr "\\n" " ")"; done; true';
  const out = (await compose('exec', '-T', service, 'sh', '-c', script)).stdout;
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => ({
      pid: Number(line.match(/\/proc\/(\d+)\//)![1]),
      rssMiB: Number(line.match(/VmRSS:\s+(\d+)/)![1]) / 1024,
      anonMiB: Number(line.match(/RssAnon:\s+(\d+)/)![1]) / 1024,
    }));
}

async function snapshot(label: string) {
  const rows = [];
  for (const service of GATEWAYS) rows.push({ service, containerMiB: await containerMiB(service), processes: await processes(service) });
  for (const r of rows) {
    const procs = r.processes.map((p) => `pid ${p.pid} ${p.rssMiB.toFixed(0)} (${p.anonMiB.toFixed(0)} private)`).join(', ');
    console.log(`  ${label.padEnd(22)} ${r.service}: ${r.containerMiB.toFixed(1)} MiB; node processes, RSS MiB: ${procs}`);
  }
  return rows;
}

const lb = `http://127.0.0.1:${port}`;
let result: Record<string, unknown> | undefined;
try {
  // The image the file names (`image: nlgate:local`, `build: .`), built as compose would, on the host
  // network: the build's `npm ci` reaches the registry the way this machine does.
  await run('docker', ['build', '--network', 'host', '-q', '-t', 'nlgate:local', '.'], { cwd: ROOT, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
  await compose('up', '-d', '--no-build');
  for (let i = 0; i < 240 && (await fetch(`${lb}/readyz`).then((r) => r.status, () => 0)) !== 200; i++) await sleep(500);
  // Past start-up (the console's warm-up, the first probes) and past the first idle look, at which
  // each worker gives start-up's spare heap back (server.idleReleaseMs, 5 s).
  await sleep(SETTLED_MS);
  console.log(`docker-compose.yml as shipped (rate limit lifted), ${ASKS} asks through nginx\n`);
  const idle = await snapshot('idle');
  const asksPerS = await firstTurnAsks(lb, ASKS);
  await sleep(2000);
  const afterLoad = await snapshot(`after ${ASKS} asks`);
  // Then quiet: the workers return what the load grew at their next quiet look, once 30 s have
  // passed since their last release (the one after start-up, if the load was short).
  await sleep(AFTER_LOAD_QUIET_MS);
  const onceQuiet = await snapshot('quiet again');
  const verdict = (rows: Array<{ containerMiB: number }>) => {
    const worst = Math.max(...rows.map((r) => r.containerMiB));
    return `${worst.toFixed(1)} MiB (target ≤ ${TARGET_MIB}: ${worst <= TARGET_MIB ? 'met' : 'missed'})`;
  };
  console.log(`\none gateway container right after the load: ${verdict(afterLoad)}; ${asksPerS} asks/s`);
  console.log(`one gateway container ${AFTER_LOAD_QUIET_MS / 1000} s after it: ${verdict(onceQuiet)}`);
  result = { date: new Date().toISOString(), asks: ASKS, asksPerS, targetMiB: TARGET_MIB, idle, afterLoad, onceQuiet };
} finally {
  await compose('down', '-v', '--remove-orphans', '--timeout', '5').catch((err: unknown) => console.error(`compose down: ${String(err)}`));
  rmSync(lifted, { force: true });
  rmSync(override, { force: true });
}
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/compose.json'), JSON.stringify(result, null, 2) + '\n');
