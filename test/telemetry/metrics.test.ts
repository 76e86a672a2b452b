/**
 * Issue 13 item 1: after traffic on every inbound protocol, one scrape of `/metrics` shows every
 * series the operations page lists, with bounded labels; random queries, tokens, conversation ids
 * and paths create no new series.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../mcp/support.ts';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let upstream: Awaited<ReturnType<typeof startV055Agent>>;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** One sample line of the exposition: `name{a="b",...} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

async function scrapeMetrics(): Promise<Sample[]> {
  const res = await fetch(`${gw.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return parseExposition(await res.text());
}

const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) => find(samples, name, labels).reduce((n, s) => n + s.value, 0);

/** Every series as `name{labels}` without values (the cardinality of the exposition). */
const seriesOf = (samples: Sample[]) =>
  new Set(samples.filter((s) => s.name.startsWith('nlgate_')).map((s) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`));

beforeAll(async () => {
  upstream = await startV055Agent({ slowMs: 400 });
  gw = await startGateway({
    defaults: { promiseAfterMs: 100 },
    agents: [
      { name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' },
      { name: 'remote', kind: 'nlweb', url: upstream.url, streaming: false },
      { name: 'limited', kind: 'catalog', file: 'examples/catalog/recipes.jsonl', rateLimit: { requests: 1, windowMs: 60_000 } },
    ],
    defaultAgent: 'recipes',
  });
}, 30_000);
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('/metrics after traffic on every protocol', () => {
  it('shows requests per protocol, upstream calls, promises, conversations, sessions, rejections, store commands and process metrics', async () => {
    // NLWeb v0.55, one answer and one stream.
    expect((await post('/ask', { query: { text: 'spaghetti' } })).status).toBe(200);
    const stream = await post('/ask', { query: { text: 'garlic' }, prefer: { streaming: true } });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await stream.text();
    // NLWeb upstream, slow enough to become a promise, awaited to its answer.
    const asked = (await (await post('/agents/remote/ask', { query: { text: 'slow pasta' } })).json()) as { promise: { token: string } };
    const done = (await (await post('/await', { promise_token: asked.promise.token, action: 'checkin', wait_ms: 5000 })).json()) as { _meta: { response_type: string } };
    expect(done._meta.response_type).toBe('answer');
    // Legacy NLWeb REST.
    expect((await fetch(`${gw.url}/ask?query=pasta&streaming=false`)).status).toBe(200);
    // NLIP.
    expect((await post('/nlip', { format: 'text', subformat: 'english', content: 'pasta' })).status).toBe(200);
    // Webtool.
    expect((await post('/webtools/recipes', { sessionId: 'metrics-session-0001', action: 'ask', request: { query: { text: 'pasta' } } })).status).toBe(200);
    // MCP (a 2025 client: its session is created and counted), with the real SDK client.
    const client = await connectClient(`${gw.url}/mcp`, '2025-11-25');
    const result = await client.callTool({ name: 'ask', arguments: { query: { text: 'pasta', site: 'recipes' } } });
    expect(result.isError).toBeFalsy();
    await client.close();
    // A rate limit: the second call to `limited` in the window is refused.
    await post('/agents/limited/ask', { query: { text: 'one' } });
    expect((await post('/agents/limited/ask', { query: { text: 'two' } })).status).toBe(429);

    const m = await scrapeMetrics();
    for (const protocol of ['nlweb', 'nlweb-legacy', 'nlip', 'webtool', 'mcp']) {
      expect(total(m, 'nlgate_requests_total', { protocol }), protocol).toBeGreaterThan(0);
      expect(total(m, 'nlgate_request_duration_seconds_count', { protocol }), protocol).toBeGreaterThan(0);
    }
    expect(total(m, 'nlgate_requests_total', { protocol: 'nlweb', route: '/ask', agent: 'recipes', outcome: 'success', status: '200' })).toBe(2);
    expect(total(m, 'nlgate_requests_total', { protocol: 'nlweb', route: '/agents/:agent/ask', agent: 'remote', outcome: 'promise', status: '202' })).toBe(1);
    expect(total(m, 'nlgate_requests_total', { protocol: 'nlweb', route: '/await', outcome: 'success' })).toBe(1);
    expect(total(m, 'nlgate_requests_total', { agent: 'limited', outcome: 'rejected', status: '429' })).toBe(1);
    expect(total(m, 'nlgate_requests_total', { protocol: 'webtool', route: '/webtools/:agent', agent: 'recipes', outcome: 'success' })).toBe(1);
    expect(total(m, 'nlgate_requests_total', { protocol: 'nlweb-legacy', route: '/ask', agent: 'recipes' })).toBe(1);
    expect(total(m, 'nlgate_requests_total', { protocol: 'nlip', route: '/nlip', agent: 'recipes' })).toBe(1);
    // The stream was open while it ran, and is closed now.
    expect(find(m, 'nlgate_open_streams', { protocol: 'nlweb' })).toEqual([expect.objectContaining({ value: 0 })]);
    expect(total(m, 'nlgate_upstream_requests_total', { agent: 'remote', kind: 'nlweb', outcome: '2xx' })).toBe(1);
    expect(total(m, 'nlgate_upstream_request_duration_seconds_count', { agent: 'remote', kind: 'nlweb' })).toBe(1);
    expect(total(m, 'nlgate_promises_total', { agent: 'remote', state: 'created' })).toBe(1);
    expect(total(m, 'nlgate_promises_total', { agent: 'remote', state: 'done' })).toBe(1);
    expect(total(m, 'nlgate_conversations_created_total')).toBeGreaterThanOrEqual(7);
    expect(total(m, 'nlgate_sessions_created_total', { protocol: 'mcp' })).toBe(1);
    expect(total(m, 'nlgate_rejections_total', { limit: 'rate_limit', agent: 'limited' })).toBe(1);
    expect(total(m, 'nlgate_store_command_duration_seconds_count', { store: 'memory', command: 'createPromise' })).toBe(1);
    expect(total(m, 'nlgate_store_command_duration_seconds_count', { store: 'memory', command: 'recordTurn' })).toBeGreaterThan(0);
    expect(find(m, 'nlgate_store_errors_total')).toEqual([]);
    // Node's default process metrics ride along.
    expect(find(m, 'process_cpu_user_seconds_total')).toHaveLength(1);
    expect(find(m, 'nodejs_heap_size_used_bytes')).toHaveLength(1);
  }, 30_000);

  it('keeps label sets bounded: random queries, tokens, conversation ids, agent names and paths add no series', async () => {
    const randomTraffic = async () => {
      const r = () => randomBytes(9).toString('base64url');
      await post('/ask', { query: { text: `q ${r()}` }, meta: { session_context: { conversation_id: `conv-${r()}` } } });
      await post('/await', { promise_token: `prm_${r()}`, action: 'checkin' });
      await post(`/agents/${r()}/ask`, { query: { text: r() } });
      await fetch(`${gw.url}/${r()}/${r()}`);
      await fetch(`${gw.url}/ask?query=${r()}&streaming=false`);
      await post('/nlip', { format: 'text', subformat: 'english', content: r() });
      await post(`/webtools/${r()}`, { sessionId: r(), action: 'ask', request: { query: { text: r() } } });
      return r;
    };
    await randomTraffic();
    // A random legacy query finds a recipe or not (its outcome label is success or failure): show both first.
    await fetch(`${gw.url}/ask?query=pasta&streaming=false`);
    await fetch(`${gw.url}/ask?query=${randomBytes(9).toString('hex')}qqq&streaming=false`);
    await post('/ask', { query: { text: `zz${randomBytes(9).toString('hex')}` } });
    // The lease sweeper runs every second and has its own store-command series: let it have run.
    await new Promise((r) => setTimeout(r, 1_100));
    const before = seriesOf(await scrapeMetrics());
    const secrets: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await randomTraffic();
      secrets.push(r());
    }
    const afterText = await (await fetch(`${gw.url}/metrics`)).text();
    const after = seriesOf(parseExposition(afterText));
    expect([...after].filter((s) => !before.has(s))).toEqual([]);
    for (const s of find(parseExposition(afterText), 'nlgate_requests_total')) {
      expect(['nlweb', 'nlweb-legacy', 'nlip', 'webtool', 'mcp', 'gateway', 'none']).toContain(s.labels.protocol);
      expect(['recipes', 'remote', 'limited', 'none', 'other']).toContain(s.labels.agent);
    }
  }, 30_000);
});
