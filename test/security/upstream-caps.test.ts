/**
 * Regression (issue 11, "Upstream replies have no size cap (a 200 MB answer was buffered whole)"):
 * a JSON reply over `limits.maxUpstreamBodyBytes`, or one SSE event over `maxUpstreamEventBytes`,
 * fails the call with UPSTREAM_ERROR, drops the connection, and is never buffered: the upstream
 * cannot even write most of it, and the gateway's RSS stays bounded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nlwebAdapter } from '../../adapters/nlweb/index.ts';
import type { CallContext } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { UpstreamClient } from '../../src/core/upstream/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startFlood, type FloodServer } from '../upstream/servers.ts';

const MB = 1_048_576;
const FLOOD = 200 * MB;
const limits = { maxUpstreamBodyBytes: MB, maxUpstreamEventBytes: 256 * 1024 };

let flood: FloodServer | undefined;
let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  await flood?.close();
  gw = flood = undefined;
});

function agentFor(url: string, streaming: boolean) {
  const config = nlwebAdapter.configSchema.parse({ url, streaming });
  const upstream = new UpstreamClient({ agent: 'big', kind: 'nlweb', limits });
  return nlwebAdapter.create({ ...config, name: 'big', kind: 'nlweb' }, { log: silentLogger, baseDir: '.', upstream });
}
const ctx = (): CallContext => ({ signal: AbortSignal.timeout(60_000), requestId: 'req-caps', log: silentLogger });
async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('upstream size caps', () => {
  it('a 200 MB JSON reply fails with UPSTREAM_ERROR naming the limit; the connection is dropped early', async () => {
    flood = await startFlood('json', FLOOD);
    const before = process.memoryUsage().rss;
    const err = await drain(agentFor(flood.url, false).ask({ query: { text: 'q' } } as never, ctx())).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('UPSTREAM_ERROR');
    expect((err as GatewayError).message).toContain(`larger than ${MB} bytes`);
    await flood.closed();
    // Only the cap plus what socket buffers held was ever written: nothing near 200 MB.
    expect(flood.written()).toBeLessThan(32 * MB);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MB);
  });

  it('one 200 MB SSE event ends the stream with an UPSTREAM_ERROR error event and complete; the connection is dropped', async () => {
    flood = await startFlood('sse', FLOOD);
    const before = process.memoryUsage().rss;
    const events = await drain(agentFor(flood.url, true).ask({ query: { text: 'q' } } as never, ctx()));
    expect(events.map((e) => e.type)).toEqual(['start', 'error', 'complete']);
    const error = events[1] as Extract<AgentEvent, { type: 'error' }>;
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain('stream event larger than');
    await flood.closed();
    expect(flood.written()).toBeLessThan(32 * MB);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MB);
  });

  it('a declared Content-Length over the cap is refused before reading', async () => {
    const { listenRaw } = await import('../support/http.ts');
    let wrote = 0;
    const server = await listenRaw((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(FLOOD) });
      const chunk = Buffer.alloc(64 * 1024, 32);
      const pump = () => {
        while (wrote < FLOOD && !res.destroyed) {
          wrote += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    try {
      const err = await drain(agentFor(server.url, false).ask({ query: { text: 'q' } } as never, ctx())).then(() => undefined, (e: unknown) => e);
      expect((err as GatewayError).code).toBe('UPSTREAM_ERROR');
      expect(wrote).toBeLessThan(32 * MB);
    } finally {
      await server.close();
    }
  });

  it('through the gateway, limits come from config and the NLWeb client gets a failure', async () => {
    flood = await startFlood('json', FLOOD);
    gw = await startGateway({ limits, agents: [{ name: 'big', kind: 'nlweb', url: flood.url, streaming: false }] });
    const res = await fetch(`${gw.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'q' }, prefer: { streaming: false } }) });
    const body = (await res.json()) as { _meta: { response_type: string } };
    expect(body._meta.response_type).toBe('failure');
    expect(JSON.stringify(body)).toContain('larger than');
    await flood.closed();
    expect(flood.written()).toBeLessThan(32 * MB);
  });
});
