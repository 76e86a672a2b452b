/**
 * The platform's own cost, for scale: the smallest gateway one could write on the same stack
 * (Hono on @hono/node-server, the body forwarded with an undici `Pool`, the answer passed back),
 * with no parsing, state, edge or telemetry. Issue 12 measured this kind of forwarder by hand;
 * the bench runs it in the same run as nginx and nlgate, so "how far from the platform" is a ratio.
 *
 *   node --import tsx bench/lib/platform-floor.ts UPSTREAM_URL   → prints `listening <url>`
 */
import { serve } from '@hono/node-server';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { Pool } from 'undici';

export interface Floor {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the forwarder in its own process (one core, like the one-worker gateway). */
export async function startPlatformFloor(upstreamUrl: string): Promise<Floor> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), upstreamUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = out.match(/listening (\S+)/);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`platform floor exited (${code})`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const upstream = new URL(process.argv[2]!);
  const pool = new Pool(upstream.origin, { connections: 64 });
  const app = new Hono();
  app.post('*', async (c) => {
    const r = await pool.request({ path: upstream.pathname.replace(/\/$/, '') + c.req.path, method: 'POST', body: await c.req.text(), headers: { 'content-type': 'application/json' } });
    return c.body(await r.body.text(), r.statusCode as 200, { 'content-type': String(r.headers['content-type'] ?? 'application/json') });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`listening http://127.0.0.1:${info.port}`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
