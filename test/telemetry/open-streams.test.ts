/**
 * Regression (issue 12, "the stream gauge wrapped every SSE body in a second stream"): over real
 * HTTP the open-streams gauge and the request's outcome follow the Node response's own end, not a
 * stream around the body: 1 while an answer streams, 0 after it ends, and a client that leaves
 * counts as `cancelled`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let upstream: Awaited<ReturnType<typeof startV055Agent>>;

beforeAll(async () => {
  upstream = await startV055Agent();
  gw = await startGateway({ agents: [{ name: 'remote', kind: 'nlweb', url: upstream.url, streaming: true }] });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

/** One series' value from /metrics (0 when absent). */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) && want.every((w) => line.includes(w))) sum += Number(line.split(' ').pop());
  return sum;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 25));
  expect(await check()).toBe(true);
}

const ask = (text: string, signal?: AbortSignal) =>
  fetch(`${gw.url}/agents/remote/ask`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ query: { text } }), ...(signal ? { signal } : {}) });

describe('open SSE streams over HTTP', () => {
  it('counts a streamed answer as open until its end', async () => {
    const res = await ask('pasta');
    expect(await res.text()).toContain('event: complete');
    await until(async () => (await metric('nlgate_requests_total', { protocol: 'nlweb', outcome: 'success' })) === 1);
    expect(await metric('nlgate_open_streams', { protocol: 'nlweb' })).toBe(0);
  });

  it('counts a stream the client leaves as cancelled, and closes it', async () => {
    const client = new AbortController();
    const res = await ask('stall', client.signal);
    const reader = res.body!.getReader();
    await reader.read(); // the first bytes: the stream is open
    expect(await metric('nlgate_open_streams', { protocol: 'nlweb' })).toBe(1);
    client.abort();
    await until(async () => (await metric('nlgate_open_streams', { protocol: 'nlweb' })) === 0);
    await until(async () => (await metric('nlgate_requests_total', { protocol: 'nlweb', outcome: 'cancelled' })) === 1);
  });

  // Issue 25: the telemetry no longer reads every answer's headers to tell a stream; a binding says
  // so. A stream asked for in the body alone (no `Accept: text/event-stream`) must still count.
  it('counts a stream asked for by prefer.streaming alone (no Accept header) as open until its end', async () => {
    const client = new AbortController();
    const res = await fetch(`${gw.url}/agents/remote/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: { text: 'stall' }, prefer: { streaming: true } }),
      signal: client.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    await res.body!.getReader().read();
    expect(await metric('nlgate_open_streams', { protocol: 'nlweb' })).toBe(1);
    client.abort();
    await until(async () => (await metric('nlgate_open_streams', { protocol: 'nlweb' })) === 0);
  });
});
