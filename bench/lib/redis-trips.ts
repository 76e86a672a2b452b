import { connect } from 'node:net';

/**
 * Counts the commands clients send to Redis while `fn` runs `n` times, through MONITOR on a plain
 * socket (ioredis' monitor mode trips over its own ready check: "Command queue state error").
 * Commands a Lua script runs inside Redis are reported with source "lua" and are not round trips:
 * they are left out, so the figure is what crosses the network. With `keyKinds`, a command is
 * counted under its name and the kind of its first key (`evalsha conv`, `zadd lru`: the key's part
 * after `prefix` up to the first ':'), to tell scripts apart.
 */
export async function roundTripsPer(
  url: string,
  n: number,
  fn: () => Promise<unknown>,
  keyKinds?: { prefix: string },
): Promise<{ perCall: number; byCommand: Record<string, number> }> {
  await fn(); // loads the Lua scripts (EVALSHA misses) outside the measurement
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || 6379), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const counts: Record<string, number> = {};
  let buffered = '';
  let started!: () => void;
  const ok = new Promise<void>((r) => (started = r));
  socket.on('data', (d: Buffer) => {
    buffered += d.toString('utf8');
    const lines = buffered.split('\r\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line === '+OK') started();
      // +1700000000.123456 [0 127.0.0.1:5555] "evalsha" "..." — or [0 lua] for a script's commands.
      const m = line.match(/^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"(.*)$/);
      if (!m || m[1] === 'lua') continue;
      const command = m[2]!.toLowerCase();
      const name = keyKinds ? command + keyKind(command, m[3]!, keyKinds.prefix) : command;
      counts[name] = (counts[name] ?? 0) + 1;
    }
  });
  socket.write('MONITOR\r\n');
  await ok;
  for (let i = 0; i < n; i++) await fn();
  await new Promise((r) => setTimeout(r, 100));
  socket.destroy();
  const byCommand = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / n]));
  return { perCall: Object.values(byCommand).reduce((a, b) => a + b, 0), byCommand };
}

/** ` <kind>` of the first key a command names (after EVALSHA's sha and key count), or ''. */
function keyKind(command: string, rest: string, prefix: string): string {
  const args = [...rest.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1]!);
  const key = command === 'evalsha' || command === 'eval' ? (Number(args[1]) > 0 ? args[2] : undefined) : args[0];
  if (!key?.startsWith(prefix)) return '';
  return ` ${key.slice(prefix.length).split(':')[0]}`;
}
