import { spawn, type SpawnOptions } from 'node:child_process';

/** A bench server in a process of its own, once it has said where it listens. */
export interface ListeningChild {
  url: string;
  pid: number;
  /** SIGTERM, then waits for the exit (at once if it already exited). */
  stop(): Promise<void>;
}

/** Spawns `command` and resolves when it prints `listening <url>` on stdout; rejects if it exits first. */
export async function spawnListening(command: string, args: string[], options: SpawnOptions = {}): Promise<ListeningChild> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], ...options });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = out.match(/listening (\S+)/);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${args.at(-1) ?? command} exited (${code}) before listening`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
