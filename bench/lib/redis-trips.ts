import { Redis } from 'ioredis';

/**
 * Counts the commands clients send to Redis while `fn` runs `n` times, through MONITOR. Commands a
 * Lua script runs inside Redis are reported with source "lua" and are not round trips: they are
 * left out, so the figure is what crosses the network.
 */
export async function roundTripsPer(url: string, n: number, fn: () => Promise<unknown>): Promise<{ perCall: number; byCommand: Record<string, number> }> {
  await fn(); // loads the Lua scripts (EVALSHA misses) outside the measurement
  const counts: Record<string, number> = {};
  const monitorClient = new Redis(url);
  const monitor = await monitorClient.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source === 'lua') return;
    const name = args[0]!.toLowerCase();
    counts[name] = (counts[name] ?? 0) + 1;
  });
  for (let i = 0; i < n; i++) await fn();
  await new Promise((r) => setTimeout(r, 100));
  monitor.disconnect();
  monitorClient.disconnect();
  const byCommand = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / n]));
  return { perCall: Object.values(byCommand).reduce((a, b) => a + b, 0), byCommand };
}
