import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { startRedis, type RedisServer } from './redis.ts';

const run = promisify(execFile);

/** A real multi-master Redis Cluster on loopback (`redis-server --cluster-enabled yes` × N). */
export interface RedisClusterSet {
  nodes: RedisServer[];
  /** The `store.url` that dials it. */
  url: string;
  /** An ioredis Cluster client for checks (counting keys per master). */
  admin: Cluster;
  stop(): Promise<void>;
}

/** Starts `masters` cluster-enabled servers and joins them with `redis-cli --cluster create`. */
export async function startRedisCluster(masters = 3): Promise<RedisClusterSet> {
  const nodes = await Promise.all(Array.from({ length: masters }, () => startRedis({ clusterNode: true })));
  const addrs = nodes.map((n) => `127.0.0.1:${n.port}`);
  await run('redis-cli', ['--cluster', 'create', ...addrs, '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
  // Every node must agree the cluster is whole before clients use it.
  for (const n of nodes) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { stdout } = await run('redis-cli', ['-p', String(n.port), 'cluster', 'info']);
      if (stdout.includes('cluster_state:ok')) break;
      if (Date.now() > deadline) throw new Error(`cluster node ${n.port} did not become ok`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const admin = new Cluster(nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
  return {
    nodes,
    url: `redis-cluster://${addrs.join(',')}`,
    admin,
    stop: async () => {
      admin.disconnect();
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}
