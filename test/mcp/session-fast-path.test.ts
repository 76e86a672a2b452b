/**
 * Issue 25: what a 2025 session's exchange does while it runs, on the session fast path as on the
 * SDK path — a `notifications/cancelled` posted to the other replica aborts the call and no answer
 * is sent (the stream stays open until the client leaves), a DELETE of the session on the replica
 * running the call ends its stream without an answer, a client that leaves aborts the call, and a
 * slow answer streams. Each scenario runs on two replicas with the fast paths and on two without,
 * over real HTTP, and both must be seen the same way; a counter proves the fast path served it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinBindings } from '../../src/bindings/index.ts';
import { mcpHttpBindingWith } from '../../src/bindings/mcp-http/index.ts';
import { MemoryBackend, MemoryStore } from '../../src/store/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';
import { eventually } from './support.ts';

const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const CONFIG = { defaults: { promiseAfterMs: 30_000 }, agents: [{ name: 'recipes', kind: 'scripted' }] };

const served: string[] = [];
let fastPair: [TestGateway, TestGateway];
let sdkPair: [TestGateway, TestGateway];

async function replicas(fastPath: boolean): Promise<[TestGateway, TestGateway]> {
  const backend = new MemoryBackend({ sweepIntervalMs: 60_000 });
  const mcp = mcpHttpBindingWith(fastPath ? { onFastPath: (m) => served.push(m) } : { fastPath: false });
  const bindings = builtinBindings.map((b) => (b.name === 'mcp-http' ? mcp : b));
  const a = await startGateway(CONFIG, { store: new MemoryStore({ backend }), replicaId: 'replica-a', bindings });
  const b = await startGateway(CONFIG, { store: new MemoryStore({ backend }), replicaId: 'replica-b', bindings });
  return [a, b];
}

beforeAll(async () => {
  fastPair = await replicas(true);
  sdkPair = await replicas(false);
});
afterAll(async () => {
  for (const gw of [...(fastPair ?? []), ...(sdkPair ?? [])]) await gw.close();
});

type Post = (on: TestGateway, body: unknown, signal?: AbortSignal) => Promise<Response>;

/** A 2025-11-25 session opened on `gw`: its id, and how to POST to it on any replica. */
async function session(gw: TestGateway): Promise<Post & { id: string }> {
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: JSON_AND_SSE, body: JSON.stringify(init) });
  await res.text();
  const id = res.headers.get('mcp-session-id')!;
  const headers = { ...JSON_AND_SSE, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  const post: Post = (on, body, signal) => fetch(`${on.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  return Object.assign(post, { id });
}

const ask = (id: number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: { query: { text } } } });

/** What the client has read of a body after `ms` (the stream may stay open), and whether it had ended. */
async function readFor(res: Response, ms: number): Promise<{ text: string; ended: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const until = Date.now() + ms;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) break;
    const next = await Promise.race([reader.read(), new Promise<'late'>((r) => setTimeout(() => r('late'), left))]);
    if (next === 'late') break;
    if (next.done) return { text, ended: true };
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return { text, ended: false };
}

/** The scripted call whose query is `text` (each scenario's text is unique). */
const upstreamCall = (text: string) => scriptedCalls.find((c) => c.request.query.text === text);

/** A scenario on one pair of replicas; what the client saw, and whether the agent's call was aborted. */
type Scenario = (pair: [TestGateway, TestGateway], tag: string) => Promise<Record<string, unknown>>;

async function onBothPaths(scenario: Scenario, fastServed: string[]): Promise<Record<string, unknown>> {
  served.length = 0;
  const fast = await scenario(fastPair, 'fast');
  expect(served).toEqual(fastServed);
  const sdk = await scenario(sdkPair, 'sdk');
  expect(fast).toEqual(sdk);
  return fast;
}

describe('a 2025 session exchange while it runs, on the session fast path as on the SDK path (issue 25)', () => {
  it('a cancel posted to the other replica aborts the call; no answer is sent and the stream stays open', async () => {
    const seen = await onBothPaths(async ([a, b], tag) => {
      const post = await session(a);
      const text = `slow:5000 cancel-${tag}`;
      const res = await post(a, ask(3, text));
      await eventually(() => upstreamCall(text) !== undefined);
      const cancel = await post(b, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'changed my mind' } });
      await eventually(() => upstreamCall(text)!.aborted);
      const read = await readFor(res, 300);
      return { status: res.status, type: res.headers.get('content-type'), cancel: cancel.status, read, aborted: upstreamCall(text)!.aborted };
    }, ['tools/call']);
    expect(seen).toEqual({ status: 200, type: 'text/event-stream', cancel: 202, read: { text: '', ended: false }, aborted: true });
  });

  it('a cancel naming another request id, or a string id for a number, aborts nothing', async () => {
    const seen = await onBothPaths(async ([a, b], tag) => {
      const post = await session(a);
      const text = `slow:400 keep-${tag}`;
      const res = await post(a, ask(4, text));
      await eventually(() => upstreamCall(text) !== undefined);
      await post(b, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
      await post(b, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '4' } });
      const body = await res.text();
      return { answered: body.includes('"id":4') && body.includes('item 0 for'), aborted: upstreamCall(text)!.aborted };
    }, ['tools/call']);
    expect(seen).toEqual({ answered: true, aborted: false });
  });

  it('a DELETE of the session on the replica running the call ends its stream without an answer', async () => {
    const seen = await onBothPaths(async ([a], tag) => {
      const post = await session(a);
      const text = `slow:5000 delete-${tag}`;
      const res = await post(a, ask(6, text));
      await eventually(() => upstreamCall(text) !== undefined);
      const deleted = await fetch(`${a.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': post.id } });
      const read = await readFor(res, 2000);
      await eventually(() => upstreamCall(text)!.aborted);
      return { deleted: deleted.status, read, aborted: true };
    }, ['tools/call']);
    expect(seen).toEqual({ deleted: 200, read: { text: '', ended: true }, aborted: true });
  });

  it('a client that goes away aborts the call', async () => {
    await onBothPaths(async ([a], tag) => {
      const post = await session(a);
      const text = `slow:5000 gone-${tag}`;
      const leave = new AbortController();
      const res = await post(a, ask(7, text), leave.signal).catch(() => undefined);
      await eventually(() => upstreamCall(text) !== undefined);
      leave.abort();
      void res?.body?.cancel().catch(() => undefined);
      await eventually(() => upstreamCall(text)!.aborted);
      return { aborted: true };
    }, ['tools/call']);
  });

  it('a slow answer streams: the headers first, then the same frame', async () => {
    const seen = await onBothPaths(async ([a], tag) => {
      const post = await session(a);
      const res = await post(a, ask(8, `slow:300 stream-${tag}`));
      const body = (await res.text()).replace(/conv_[A-Za-z0-9_-]+/g, '<conv>').replaceAll(`stream-${tag}`, 'stream-x');
      return { status: res.status, type: res.headers.get('content-type'), chunked: res.headers.get('transfer-encoding'), body };
    }, ['tools/call']);
    expect(seen.chunked).toBe('chunked');
    expect(String(seen.body)).toMatch(/^event: message\ndata: \{"result":\{"_meta":.*"id":8\}\n\n$/s);
  });
});
