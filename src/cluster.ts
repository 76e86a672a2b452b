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

/** The worker count `WORKERS` names (a number or `auto`), or undefined when it names none. */
export function workersFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.WORKERS;
  return raw === undefined || raw === '' ? undefined : parseWorkers(raw);
}

/** The worker count a config asks for: `WORKERS` (a number or `auto`) over `server.workers`. */
export function workerCount(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): number {
  return workersFromEnv(env) ?? parseWorkers(config.server.workers);
}

function parseWorkers(raw: unknown): number {
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
/** A worker's exit code for a config it cannot run (sysexits' EX_CONFIG): its primary stops, exit 1. */
export const EXIT_CONFIG = 78;

/**
 * Runs the primary: forks one worker, and the other `count - 1` once it listens (the first worker
 * loads and checks the config, so a bad one is reported once, and a primary started by `WORKERS`
 * never loads it); replaces a worker that dies unexpectedly; stops when a worker exits with
 * EXIT_CONFIG (the config cannot run: replacing it would loop); and on SIGTERM or SIGINT asks
 * every worker to stop (each closes its listener and store) before exiting. Resolves with the exit
 * code once all workers are gone after a stop.
 */
export function runPrimary(count: number, log: Logger): Promise<number> {
  let stopping = false;
  let forked = 1;
  const fork = (): Worker => cluster.fork({ NLGATE_WORKER: '1' });
  fork();
  cluster.on('listening', () => {
    for (; forked < count; forked++) fork();
  });
  log.info({ workers: count, pid: process.pid }, 'nlgate primary started its workers');
  return new Promise((resolve) => {
    let code = 0;
    const stop = (reason: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ reason }, 'stopping the workers');
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
      if (workers.length === 0) return resolve(code);
      let left = workers.length;
      for (const w of workers) {
        w.once('exit', (exitCode) => {
          if (exitCode !== 0) code = 1;
          if (--left === 0) resolve(code);
        });
        w.process.kill('SIGTERM');
      }
    };
    cluster.on('exit', (worker, exitCode, signal) => {
      if (stopping) return;
      if (exitCode === EXIT_CONFIG) {
        code = 1; // the worker said why on stderr
        return stop('a worker cannot run the config');
      }
      log.warn({ worker: worker.process.pid, code: exitCode, signal }, 'a worker exited: starting another');
      setTimeout(() => !stopping && fork(), RESTART_DELAY_MS).unref();
    });
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
