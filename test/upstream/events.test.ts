/**
 * Every upstream exchange is published on `upstreamChannels` (src/core/upstream-events.ts): request
 * (with mutable headers: a subscriber's `traceparent` reaches the upstream), response, chunks, one
 * end; each carrying the inbound request's id (X-Request-Id), the agent and its kind.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamChunkEvent, UpstreamEndEvent, UpstreamExchange, UpstreamResponseEvent } from '../../src/core/upstream-events.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startScripted, type RecordingServer } from './servers.ts';

const ANSWER = readFileSync(new URL('../fixtures/nlweb-v055/b1-answer.response.json', import.meta.url), 'utf8');
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const SSE = 'event: start\ndata: {"_meta":{"version":"0.55"}}\n\nevent: result\ndata: {"index":0,"item":{"name":"Soup","url":"https://x.example/soup"}}\n\nevent: complete\ndata: {}\n\n';

let upstream: RecordingServer;
let gw: TestGateway;
beforeAll(async () => {
  upstream = await startScripted((req) => (req.headers.accept === 'text/event-stream' ? { type: 'text/event-stream', body: SSE } : { body: ANSWER }));
  gw = await startGateway({
    agents: [
      { name: 'json', kind: 'nlweb', url: upstream.url, streaming: false, headers: { 'x-api-key': 'k' } },
      { name: 'sse', kind: 'nlweb', url: upstream.url, streaming: true },
    ],
  });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

type Seen = ['request', UpstreamExchange] | ['response', UpstreamResponseEvent] | ['chunk', UpstreamChunkEvent] | ['end', UpstreamEndEvent];

/** Runs `fn` while recording every upstream event, in order; the request hook adds a traceparent. */
async function recording(fn: () => Promise<Response>, follow = true): Promise<{ seen: Seen[]; res: Response }> {
  const seen: Seen[] = [];
  const handlers = {
    request: (m: unknown) => {
      const exchange = m as UpstreamExchange;
      exchange.headers.traceparent = TRACEPARENT;
      if (follow) exchange.follow = true;
      seen.push(['request', exchange]);
    },
    response: (m: unknown) => seen.push(['response', m as UpstreamResponseEvent]),
    chunk: (m: unknown) => seen.push(['chunk', m as UpstreamChunkEvent]),
    end: (m: unknown) => seen.push(['end', m as UpstreamEndEvent]),
  };
  for (const [name, h] of Object.entries(handlers)) subscribe(`nlgate:upstream:${name}`, h);
  try {
    const res = await fn();
    await res.clone().text();
    // `end` follows the body's close, a tick after the reply was rendered.
    for (let i = 0; i < 100 && !seen.some(([k]) => k === 'end'); i++) await new Promise((r) => setTimeout(r, 10));
    return { seen, res };
  } finally {
    for (const [name, h] of Object.entries(handlers)) unsubscribe(`nlgate:upstream:${name}`, h);
  }
}

const ask = (agent: string, streaming: boolean) =>
  fetch(`${gw.url}/agents/${agent}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'soup' }, prefer: { streaming } }) });

describe('upstream diagnostics channels', () => {
  for (const [agent, streaming] of [['json', false], ['sse', true]] as const) {
    it(`${agent}: request, response, chunks, one end — in that order, with the request id, agent and kind`, async () => {
      upstream.seen.length = 0;
      const { seen, res } = await recording(() => ask(agent, streaming));
      const kinds = seen.map(([k]) => k);
      expect(kinds[0]).toBe('request');
      expect(kinds[1]).toBe('response');
      expect(kinds.at(-1)).toBe('end');
      expect(kinds.filter((k) => k === 'end')).toHaveLength(1);
      expect(kinds.slice(2, -1).every((k) => k === 'chunk')).toBe(true);
      const exchange = seen[0]![1] as UpstreamExchange;
      expect(exchange).toMatchObject({ requestId: res.headers.get('x-request-id'), agent, kind: 'nlweb', method: 'POST', url: `${upstream.url}/ask` });
      expect(JSON.parse(exchange.body!).query.text).toBe('soup');
      for (const [, e] of seen.slice(1)) expect((e as { exchange: UpstreamExchange }).exchange.id).toBe(exchange.id);
      expect((seen[1]![1] as UpstreamResponseEvent).status).toBe(200);
      const body = seen.filter(([k]) => k === 'chunk').map(([, e]) => (e as UpstreamChunkEvent).chunk).join('');
      expect(body).toBe(streaming ? SSE : ANSWER);
      const end = seen.at(-1)![1] as UpstreamEndEvent;
      expect(end.error).toBeUndefined();
      // The end repeats the status, so counting outcomes needs no `response` subscription.
      expect(end.status).toBe(200);
      expect(end.bytes).toBe(Buffer.byteLength(streaming ? SSE : ANSWER));
      // The header a subscriber added went upstream.
      expect(upstream.seen[0]!.headers.traceparent).toBe(TRACEPARENT);
    });
  }

  // Issue 25: `response` and `chunk` are built only for an exchange someone follows (the console's
  // capture, tracing); with the console on, every exchange decoded its body as text for nothing.
  it('an exchange no subscriber follows publishes only its request and its end', async () => {
    const { seen } = await recording(() => ask('json', false), false);
    expect(seen.map(([k]) => k)).toEqual(['request', 'end']);
    expect((seen[1]![1] as UpstreamEndEvent).status).toBe(200);
    expect((seen[1]![1] as UpstreamEndEvent).bytes).toBe(Buffer.byteLength(ANSWER));
  });

  it('a failed exchange ends once, with the error code', async () => {
    const dead = await startGateway({ agents: [{ name: 'dead', kind: 'nlweb', url: 'http://127.0.0.1:9', streaming: false }] });
    try {
      const { seen } = await recording(() =>
        fetch(`${dead.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { text: 'q' }, prefer: { streaming: false } }) }),
      );
      expect(seen.map(([k]) => k)).toEqual(['request', 'end']);
      expect((seen[1]![1] as UpstreamEndEvent).error).toBe('UPSTREAM_ERROR');
      expect((seen[1]![1] as UpstreamEndEvent).status).toBeUndefined();
    } finally {
      await dead.close();
    }
  });
});
