/**
 * `server.workers`: the gateway on every core through Node's `cluster` module (docs/benchmarks.md
 * "Workers"). The primary only forks and supervises; each worker is a whole gateway replica sharing
 * the listening socket (the primary hands connections round-robin) and the Redis store, exactly as
 * replicas on separate machines share it.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { GatewayConfig } from './config/schema.ts';
import type { Logger } from './base/logger.ts';

/** The worker count a config asks for: `WORKERS` (a number or `auto`) over `server.workers`. */
export function workerCount(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.WORKERS !== undefined && env.WORKERS !== '' ? env.WORKERS : config.server.workers;
  if (raw === 'auto') return availableParallelism();
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new Error(`WORKERS must be "auto" or a whole number from 1 to 256 (got "${String(raw)}")`);
  return n;
}

/**
 * Why a worker count cannot run with this config, if it cannot: the memory store lives inside one
 * process, so several workers would each hold their own promises and conversations.
 */
export function workersProblem(config: GatewayConfig, workers: number): string | undefined {
  if (workers > 1 && config.store.kind === 'memory') {
    return `server.workers is ${workers} but the memory store keeps state inside one process: set workers: 1, or use store: { kind: redis, url: ... } so the workers share promises and conversations`;
  }
  return undefined;
}

/** True in a forked worker process. */
export const isWorker = (): boolean => cluster.isWorker;

const RESTART_DELAY_MS = 1_000;

/**
 * Runs the primary: forks `count` workers, replaces one that dies unexpectedly, and on SIGTERM or
 * SIGINT asks every worker to stop (each closes its listener and store) before exiting. Resolves
 * with the exit code once all workers are gone after a stop.
 */
export function runPrimary(count: number, log: Logger): Promise<number> {
  let stopping = false;
  const fork = (): Worker => cluster.fork({ NLGATE_WORKER: '1' });
  for (let i = 0; i < count; i++) fork();
  log.info({ workers: count, pid: process.pid }, 'nlgate primary started its workers');
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log.warn({ worker: worker.process.pid, code, signal }, 'a worker exited: starting another');
    setTimeout(() => !stopping && fork(), RESTART_DELAY_MS).unref();
  });
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'stopping the workers');
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      if (workers.length === 0) return resolve(0);
      let left = workers.length;
      let failed = false;
      for (const w of workers) {
        w.once('exit', (code) => {
          failed ||= code !== 0;
          if (--left === 0) resolve(failed ? 1 : 0);
        });
        w.process.kill('SIGTERM');
      }
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
