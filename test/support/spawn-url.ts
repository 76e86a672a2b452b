import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './gateway.ts';

/** A process that printed the URL it listens on. */
export interface Listening {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Spawns `node <args>` in the repository (or `cwd`) and resolves with the first URL it prints: a gateway's
 * `"url":"http://…"` log line or a demo agent's `on http://…` line.
 */
export function spawnListening(args: string[], env: Record<string, string>, cwd = REPO_ROOT): Promise<Listening> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env } });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no URL printed by ${args.join(' ')}: ${out}`))), 30_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = out.match(/"url":"(http:[^"]+)"/) ?? out.match(/ on (http:\/\/[^\s/]+)/);
      if (m) (clearTimeout(timer), resolve({ url: m[1]!, child, stop }));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`${args.join(' ')} exited ${code}: ${out}`))));
  });
}
