import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from './gateway.ts';

/** A gateway running as its own OS process (`nlgate serve`), for replica and crash tests. */
export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr (its logs). */
  output(): string;
  /** SIGKILL: the replica dies without any cleanup (kill -9). */
  kill(): Promise<void>;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<void>;
  /** Resolves once `pattern` (global) has matched `count` times in the output; rejects after 20 s. */
  waitForOutput(pattern: RegExp, count?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
const files = new Set<string>();
// A crashed or interrupted run must leave neither gateway processes nor their config files behind.
process.once('exit', () => {
  live.forEach((c) => c.kill('SIGKILL'));
  files.forEach((f) => rmSync(f, { force: true }));
});

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/**
 * Writes `config` to a temporary YAML file and starts `src/cli.ts serve` on a free port; resolves
 * once the process logs that it listens. Relative paths in the config resolve against the repo root.
 */
export async function spawnGateway(config: Record<string, unknown>, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const file = join(REPO_ROOT, `.nlgate-test-${process.pid}-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, stringify(config));
  files.add(file);
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli.ts'), 'serve', '--config', file], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const cleanup = () => {
    live.delete(child);
    files.delete(file);
    rmSync(file, { force: true });
  };
  child.once('exit', cleanup);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start in 20 s:\n${out}`)), 20_000);
    const onData = () => {
      const m = out.match(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited(child);
    },
    waitForOutput: async (pattern, count = 1) => {
      const deadline = Date.now() + 20_000;
      while ([...out.matchAll(pattern)].length < count) {
        if (Date.now() > deadline) throw new Error(`${pattern} did not appear ${count}× in 20 s:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
