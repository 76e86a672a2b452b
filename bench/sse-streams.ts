/**
 * `npm run bench:streams` (issue 12 "Streams at scale"): holds BENCH_STREAMS (default 10,000) SSE
 * answers open at once through one gateway process, then reports the gateway's RSS. The upstream
 * (in this process) sends `start` and one result, then only keep-alive comments until released.
 * Run through bench/sse-streams.sh, which raises `ulimit -n` for the three processes' sockets.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { startGateway } from './lib/gateway.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const OPEN_CONCURRENCY = 500;

async function main(): Promise<void> {
  const held = new Set<ServerResponse>();
  const upstream = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: start\ndata: {"_meta":{"version":"0.55"}}\n\nevent: result\ndata: {"index":0,"item":{"name":"Held","url":"https://x.example/held"}}\n\n');
    held.add(res);
    res.once('close', () => held.delete(res));
  });
  upstream.maxConnections = STREAMS * 2;
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const keepalive = setInterval(() => held.forEach((r) => r.write(': keepalive\n\n')), 10_000);

  const gw = await startGateway({
    limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 }, maxConnections: STREAMS * 2, maxUpstreamConnections: STREAMS * 2 },
    defaults: { timeoutMs: 600_000, promiseAfterMs: 600_000 },
    agents: [{ name: 'held', kind: 'nlweb', url: upstreamUrl, streaming: true }],
  });
  const idleRss = gw.rssMiB();
  const client = new Agent({ connections: STREAMS, pipelining: 1, headersTimeout: 600_000, bodyTimeout: 600_000 });
  const bodies: Array<{ destroy(): void }> = [];
  let opened = 0;
  let failed = 0;
  const started = performance.now();
  const openOne = async () => {
    try {
      const res = await request(`${gw.url}/agents/held/ask`, {
        method: 'POST',
        dispatcher: client,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: { text: 'hold' } }),
      });
      // Wait for the first result (the stream is live end to end), and keep reading after it.
      await new Promise<void>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          if (!String(chunk).includes('Held')) return;
          res.body.off('data', onData);
          res.body.resume();
          resolve();
        };
        res.body.on('data', onData);
        res.body.once('error', reject);
        res.body.once('end', () => reject(new Error('the stream ended')));
      });
      bodies.push(res.body);
      opened++;
    } catch {
      failed++;
    }
  };
  for (let i = 0; i < STREAMS; i += OPEN_CONCURRENCY) {
    await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, STREAMS - i) }, openOne));
    if ((i / OPEN_CONCURRENCY) % 4 === 0) console.log(`  ${opened} open, ${failed} failed, gateway RSS ${gw.rssMiB()} MiB`);
  }
  const heldRss = gw.rssMiB();
  const result = { streams: STREAMS, opened, failed, upstreamHeld: held.size, idleRssMiB: idleRss, heldRssMiB: heldRss, perStreamKiB: Math.round(((heldRss - idleRss) * 1024) / Math.max(1, opened)), openSeconds: Math.round((performance.now() - started) / 100) / 10 };
  console.log(JSON.stringify(result, null, 2));
  bodies.forEach((b) => b.destroy());
  clearInterval(keepalive);
  await gw.stop();
  await client.destroy();
  held.forEach((r) => r.destroy());
  upstream.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
