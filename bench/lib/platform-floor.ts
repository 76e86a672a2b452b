/**
 * The platform's own cost, for scale: the smallest gateway one could write on the same stack
 * (Hono on @hono/node-server, the body forwarded with an undici `Pool`, the answer passed back),
 * with no parsing, state, edge or telemetry. Issue 12 measured this kind of forwarder by hand;
 * the bench runs it in the same run as nginx and nlgate, so "how far from the platform" is a ratio.
 *
 *   node --import tsx bench/lib/platform-floor.ts UPSTREAM_URL   → prints `listening <url>`
 */
import { serve } from '@hono/node-server';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { Pool } from 'undici';
import { spawnListening, type ListeningChild } from './listening-child.ts';

export type Floor = ListeningChild;

/** The forwarder as an app: every POST goes to the same path (less `prefix`) under `upstreamUrl`. */
export function floorApp(upstreamUrl: string, prefix = ''): { app: Hono; close(): Promise<void> } {
  const upstream = new URL(upstreamUrl);
  const pool = new Pool(upstream.origin, { connections: 64 });
  const app = new Hono();
  app.post('*', async (c) => {
    const r = await pool.request({ path: upstream.pathname.replace(/\/$/, '') + c.req.path.slice(prefix.length), method: 'POST', body: await c.req.text(), headers: { 'content-type': 'application/json' } });
    return c.body(await r.body.text(), r.statusCode as 200, { 'content-type': String(r.headers['content-type'] ?? 'application/json') });
  });
  return { app, close: () => pool.close() };
}

/** Starts the forwarder in its own process (one core, like the one-worker gateway); `wrap` and `nodeArgs` as startGateway's. */
export function startPlatformFloor(upstreamUrl: string, wrap: string[] = [], nodeArgs: string[] = []): Promise<Floor> {
  const [command, ...args] = [...wrap, process.execPath, ...nodeArgs, '--import', 'tsx', fileURLToPath(import.meta.url), upstreamUrl];
  return spawnListening(command!, args);
}

// Run as a script (not when bench/layers.ts bundles this file into its own).
if (process.argv[1] === fileURLToPath(import.meta.url) && import.meta.url.endsWith('/platform-floor.ts')) {
  const { app } = floorApp(process.argv[2]!);
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`listening http://127.0.0.1:${info.port}`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
