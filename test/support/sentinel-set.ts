import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, removeDir, scratchDir, startRedis, waitForPing, type RedisServer } from './redis.ts';

/** A master, a replica and three sentinels (quorum 2) on loopback: a real failover set. */
export interface SentinelSet {
  master: RedisServer;
  replica: RedisServer;
  sentinelPorts: number[];
  /** The `store.url` that dials the set through all three sentinels. */
  url: string;
  /** Resolves once the sentinels name a master other than `previousPort`; returns its port. */
  waitForFailover(previousPort: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the set the failover figures use (issue "Faults and scale-out" item 2): every process is
 * the machine's `redis-server`; `down-after-milliseconds` is short so a failover takes seconds.
 */
export async function startSentinelSet(opts: { downAfterMs?: number; masterName?: string; appendonly?: boolean } = {}): Promise<SentinelSet> {
  const name = opts.masterName ?? 'mymaster';
  const aof = opts.appendonly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : [];
  const master = await startRedis({ args: ['--repl-diskless-sync-delay', '0', ...aof] });
  const replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(master.port), '--repl-diskless-sync-delay', '0', ...aof] });
  await waitForSync(replica.port);
  const sentinels: ChildProcess[] = [];
  const sentinelPorts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = scratchDir('nlgate-sentinel-');
    const port = await freePort();
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${master.port} 2`,
        `sentinel down-after-milliseconds ${name} ${opts.downAfterMs ?? 1000}`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    const proc = spawn('redis-server', [conf, '--sentinel'], { stdio: ['ignore', 'ignore', 'ignore'] });
    proc.once('exit', () => removeDir(dir));
    sentinels.push(proc);
    process.once('exit', () => proc.kill('SIGKILL'));
    sentinelPorts.push(port);
    await waitForPing(port, proc);
  }
  const masterPort = async (): Promise<number | undefined> => {
    const s = new Redis({ port: sentinelPorts[0], host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await s.connect();
      const [, port] = (await s.call('SENTINEL', 'get-master-addr-by-name', name)) as [string, string];
      return Number(port);
    } catch {
      return undefined;
    } finally {
      s.disconnect();
    }
  };
  return {
    master,
    replica,
    sentinelPorts,
    url: `redis-sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${name}`,
    waitForFailover: async (previousPort, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const port = await masterPort();
        if (port !== undefined && port !== previousPort) return port;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('no failover within the deadline');
    },
    stop: async () => {
      await Promise.all(
        sentinels.map((p) => (p.exitCode !== null || p.signalCode !== null ? undefined : new Promise<void>((r) => (p.once('exit', () => r()), p.kill('SIGTERM'))))),
      );
      await master.stop();
      await replica.stop();
    },
  };
}

/** Waits until the replica's link to its master is up (a real deployment's replica is in sync). */
async function waitForSync(port: number, timeoutMs = 15_000): Promise<void> {
  const r = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ((await r.info('replication')).includes('master_link_status:up')) return;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error('the replica did not sync with its master');
  } finally {
    r.disconnect();
  }
}
