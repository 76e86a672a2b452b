/**
 * Regression (issue 12, "SSE pass-through opened a connection per call"): leaving an upstream SSE
 * stream once the answer is complete used to destroy its body, which closed the keep-alive
 * connection (and built an AbortError with its stack each time). Now what is left of a finished
 * stream is read and discarded, so the next call reuses the connection; a stream that goes on
 * sending is still dropped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamClient } from './client.ts';
import { UpstreamPools } from './pools.ts';

interface Upstream {
  url: string;
  connections: () => number;
  server: Server;
}

/** An SSE upstream: `complete`, then `tail` (more events after it), then the end unless `hold`. */
async function sseUpstream(opts: { tail?: string; hold?: boolean } = {}): Promise<Upstream> {
  let connections = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"message_type":"complete"}\n\n');
    if (opts.hold) {
      const beat = setInterval(() => res.write(': keep-alive\n\n'.repeat(512)), 5);
      res.on('close', () => clearInterval(beat));
    } else setTimeout(() => res.end(opts.tail), 10); // the end comes after the client has left the stream
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, connections: () => connections, server };
}

/** Reads events until the first one, then leaves the stream, as an adapter does at `complete`. */
async function firstEvent(client: UpstreamClient, url: string): Promise<string> {
  const res = await client.request({ url, method: 'POST', body: '{}', headers: {} });
  for await (const m of res.sse()) return m.data;
  throw new Error('no event');
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('upstream keep-alive after an SSE answer', () => {
  it('reuses one connection for calls that leave a finished stream at complete', async () => {
    const up = await sseUpstream({ tail: 'data: {"message_type":"trailing"}\n\n' });
    servers.push(up.server);
    const pools = new UpstreamPools();
    const client = new UpstreamClient({ agent: 'a', pools });
    const pool = await pools.get(new URL(up.url).origin);
    for (let i = 0; i < 5; i++) {
      expect(await firstEvent(client, up.url)).toContain('complete');
      // The rest of the body arrives and is discarded; the socket is then free in the pool. (Before
      // the fix it was destroyed instead: this wait ran out and the next call opened a new one.)
      for (let t = 0; t < 400 && !(pool.stats.free >= 1 && pool.stats.running === 0); t++) await new Promise((r) => setTimeout(r, 5));
    }
    expect(up.connections()).toBe(1);
    await pools.close();
  });

  it('drops a stream that goes on sending after the answer (the answer does not wait for its end)', async () => {
    const up = await sseUpstream({ hold: true });
    servers.push(up.server);
    const closed = new Promise<void>((resolve) => up.server.once('request', (_req, res) => res.once('close', () => resolve())));
    const client = new UpstreamClient({ agent: 'a' });
    // The stream never ends, so getting the answer at all shows the call did not wait for the end.
    expect(await firstEvent(client, up.url)).toContain('complete');
    // Past the drain budget (64 KiB of heartbeats here) the gateway closes the connection.
    await closed;
    await client.close();
  });
});
