/**
 * `npm run bench:streams` (issue 12 "Streams at scale"): holds BENCH_STREAMS (default 10,000) SSE
 * answers open at once through one gateway process, then reports the gateway's RSS. The upstream
 * (in this process) sends `start` and one result, then only keep-alive comments until released.
 * Run through bench/sse-streams.sh, which raises `ulimit -n` as far as the hard limit allows: the
 * gateway holds two sockets per stream, so a hard limit of N file descriptors allows about N / 2.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { startGateway } from './lib/gateway.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const OPEN_CONCURRENCY = 500;

/** Starts bench/lib/held-upstream.ts as a child; resolves with its URL and a way to ask how many streams it holds. */
async function startHeldUpstream(): Promise<{ url: string; held(): Promise<number>; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./lib/held-upstream.ts', import.meta.url).pathname], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((r) => lines.once('line', r));
  const url = await next();
  return {
    url,
    held: async () => {
      const answer = next();
      child.stdin!.write('held?\n');
      return Number(await answer);
    },
    stop: () => child.stdin!.end(),
  };
}

async function main(): Promise<void> {
  const upstream = await startHeldUpstream();
  const upstreamUrl = upstream.url;
  const gw = await startGateway({
    limits: { gatewayRateLimit: { requests: 1_000_000_000, windowMs: 60_000 }, maxConnections: STREAMS * 2, maxConnectionsPerAddress: STREAMS * 2, maxCallsPerPrincipal: STREAMS * 2, maxCallsInFlight: STREAMS * 2, maxUpstreamConnections: STREAMS * 2 },
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
  const result = { streams: STREAMS, opened, failed, upstreamHeld: await upstream.held(), idleRssMiB: idleRss, heldRssMiB: heldRss, perStreamKiB: Math.round(((heldRss - idleRss) * 1024) / Math.max(1, opened)), openSeconds: Math.round((performance.now() - started) / 100) / 10 };
  console.log(JSON.stringify(result, null, 2));
  bodies.forEach((b) => b.destroy());
  await gw.stop();
  await client.destroy();
  upstream.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
