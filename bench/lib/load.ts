/**
 * The load generator: `wrk` when the machine has it (C, so it takes less of the shared CPU), else
 * autocannon (dev dependency). Both report requests/s and latency percentiles for one target.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationS: number;
}

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  tool: 'wrk' | 'autocannon';
}

export const wrkAvailable = (): boolean => spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;

const luaString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'nlgate-wrk-'));
  const script = join(dir, 'req.lua');
  const lines = [`wrk.method = "${spec.method ?? 'POST'}"`];
  if (spec.body !== undefined) lines.push(`wrk.body = ${luaString(spec.body)}`);
  for (const [k, v] of Object.entries(spec.headers ?? {})) lines.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  // Count non-2xx answers as errors (wrk only reports them in its summary).
  writeFileSync(script, lines.join('\n') + '\n');
  const threads = Math.min(2, spec.connections);
  const args = [`-t${threads}`, `-c${spec.connections}`, `-d${spec.durationS}s`, '--latency', '-s', script, spec.url];
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d));
    child.stderr.on('data', (d: Buffer) => (text += d));
    child.once('error', reject);
    child.once('exit', () => resolve(text));
  });
  rmSync(dir, { recursive: true, force: true });
  const pct = (p: string) => {
    const m = out.match(new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s|m)`));
    return m ? toMs(m[1]!, m[2]!) : NaN;
  };
  const rps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? NaN);
  const non2xx = Number(out.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0);
  const socketErrors = out.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { rps: Math.round(rps), p50Ms: round(pct('50')), p99Ms: round(pct('99')), errors, tool: 'wrk' };
}

async function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'POST',
    headers: spec.headers ?? {},
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    connections: spec.connections,
    duration: spec.durationS,
  });
  return { rps: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: result.errors + result.non2xx, tool: 'autocannon' };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Drives `spec` with wrk (or autocannon when `BENCH_TOOL=autocannon` or wrk is absent). */
export function drive(spec: LoadSpec): Promise<LoadResult> {
  const useWrk = process.env.BENCH_TOOL !== 'autocannon' && wrkAvailable();
  return useWrk ? runWrk(spec) : runAutocannon(spec);
}

/**
 * `amount` first-turn NLWeb asks (`POST <base>/ask`, a new conversation each) from 32 connections,
 * as the footprint benches load a gateway; says on stderr if any was not answered 2xx. Asks/s.
 */
export async function firstTurnAsks(base: string, amount: number): Promise<number> {
  const load = await autocannon({
    url: `${base}/ask`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: { text: 'pasta' } }),
    connections: 32,
    amount,
  });
  if (load.non2xx > 0 || load.errors > 0) console.error(`load: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
  return Math.round(load.requests.average);
}
