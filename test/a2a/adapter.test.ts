import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startUpstreamA2a } from './upstream-agent.ts';

/**
 * Issue 15, outbound: the SDK's own A2A server as the upstream of an `a2a` agent, asked through the
 * gateway's NLWeb `/ask` (the canonical model itself): streaming and not, JSON-RPC and HTTP+JSON,
 * long tasks as gateway promises, multi-turn through the upstream contextId, cancel forwarded.
 */
const ask = async (base: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('an A2A agent behind the gateway', () => {
  let streaming: Awaited<ReturnType<typeof startUpstreamA2a>>;
  let plain: Awaited<ReturnType<typeof startUpstreamA2a>>;
  let elsewhere: Awaited<ReturnType<typeof startUpstreamA2a>>;
  let gw: TestGateway;

  beforeAll(async () => {
    streaming = await startUpstreamA2a({ streaming: true, slowMs: 1200 });
    plain = await startUpstreamA2a({ streaming: false, slowMs: 1200, transport: 'HTTP+JSON' });
    elsewhere = await startUpstreamA2a({ interfaceOrigin: 'http://127.0.0.1:9' });
    gw = await startGateway({
      defaults: { promiseAfterMs: 400 },
      agents: [
        { name: 'kitchen', kind: 'a2a', url: streaming.url, headers: { 'x-api-key': 'gateway-secret' } },
        { name: 'plain', kind: 'a2a', url: `${plain.url}/.well-known/agent-card.json` },
        { name: 'elsewhere', kind: 'a2a', url: elsewhere.url },
      ],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([streaming?.close(), plain?.close(), elsewhere?.close()]);
  });

  it('describes itself from the upstream card', async () => {
    const agents = (await (await fetch(`${gw.url}/agents`)).json()) as { agents: Array<{ name: string }> };
    expect(agents.agents.map((a) => a.name)).toContain('kitchen');
    const d = await gw.gateway.describeAgent('kitchen');
    expect(d.description).toContain('suggests dishes');
    expect(d.capabilities?.streaming).toBe(true);
  });

  for (const agent of ['kitchen', 'plain'] as const) {
    it(`${agent}: an ask is a message; data parts come back as items and text as the summary`, async () => {
      const res = await ask(gw.url, `/agents/${agent}/ask`, { query: { text: 'pasta', site: 'italy' } });
      expect(res.body._meta.response_type).toBe('answer');
      const items = res.body.results as Array<Record<string, unknown>>;
      expect(items.filter((i) => i['@type'] === 'Recipe').map((i) => i.name)).toEqual(['Dish 1', 'Dish 2']);
      expect(items.find((i) => i['@type'] === 'SearchSummary')?.text).toBe('Found 2 dishes for pasta');
      const upstream = agent === 'kitchen' ? streaming : plain;
      expect(upstream.received.at(-1)).toMatchObject({ text: 'pasta', data: [{ site: 'italy' }] });
    });

    it(`${agent}: a long task becomes a gateway promise that /await follows to the answer`, async () => {
      const res = await ask(gw.url, `/agents/${agent}/ask`, { query: { text: 'slow stew' } });
      expect(res.status).toBe(202);
      const token = res.body.promise.token as string;
      const done = await ask(gw.url, '/await', { promise_token: token, action: 'checkin', wait_ms: 8000 });
      expect(done.body._meta.response_type).toBe('answer');
      expect(done.body.results.some((i: { name?: string }) => i.name === 'Dish 1')).toBe(true);
    });
  }

  it('the configured headers reach the upstream; the card cannot take them elsewhere', async () => {
    await ask(gw.url, '/agents/kitchen/ask', { query: { text: 'soup' } });
    expect(streaming.received.at(-1)?.headers['x-api-key']).toBe('gateway-secret');
    const res = await ask(gw.url, '/agents/elsewhere/ask', { query: { text: 'soup' } });
    expect(res.body._meta.response_type).toBe('failure');
    expect(JSON.stringify(res.body)).not.toContain('127.0.0.1:9');
    expect(elsewhere.received).toHaveLength(0);
  });

  it('multi-turn: the upstream contextId is kept per gateway conversation', async () => {
    const first = await ask(gw.url, '/agents/kitchen/ask', { query: { text: 'tacos' } });
    const conversation = first.body._meta.session_context.conversation_id as string;
    const upstreamContext = streaming.received.at(-1)!.contextId;
    await ask(gw.url, '/agents/kitchen/ask', { query: { text: 'spicier' }, meta: { session_context: { conversation_id: conversation } } });
    expect(streaming.received.at(-1)).toMatchObject({ text: 'spicier', contextId: upstreamContext });
    await ask(gw.url, '/agents/kitchen/ask', { query: { text: 'unrelated' } });
    expect(streaming.received.at(-1)!.contextId).not.toBe(upstreamContext);
  });

  it('INPUT_REQUIRED is an elicitation; the answer goes to the waiting upstream task', async () => {
    const first = await ask(gw.url, '/agents/kitchen/ask', { query: { text: 'ask me' } });
    expect(first.body._meta.response_type).toBe('elicitation');
    expect(first.body.elicitation.text).toContain('Which cuisine?');
    expect(first.body.elicitation.questions?.[0]?.id).toBe('cuisine');
    const waiting = streaming.received.at(-1)!;
    const conversation = first.body._meta.session_context.conversation_id as string;
    const second = await ask(gw.url, '/agents/kitchen/ask', { query: { text: 'thai' }, meta: { session_context: { conversation_id: conversation } } });
    expect(second.body._meta.response_type).toBe('answer');
    expect(streaming.received.at(-1)).toMatchObject({ text: 'thai', contextId: waiting.contextId });
    expect(streaming.received.at(-1)!.taskId).not.toBe('');
  });

  it('a FAILED task is a failure; a direct Message reply is an answer', async () => {
    const failed = await ask(gw.url, '/agents/kitchen/ask', { query: { text: 'fail now' } });
    expect(failed.body._meta.response_type).toBe('failure');
    const direct = await ask(gw.url, '/agents/plain/ask', { query: { text: 'reply please' } });
    expect(direct.body.results[0]).toMatchObject({ '@type': 'SearchSummary', text: 'Direct reply to reply please' });
  });

  for (const agent of ['kitchen', 'plain'] as const) {
    it(`${agent}: cancelling the gateway promise cancels the upstream task`, async () => {
      const upstream = agent === 'kitchen' ? streaming : plain;
      const before = upstream.cancelled.size;
      const res = await ask(gw.url, `/agents/${agent}/ask`, { query: { text: 'slow cake' } });
      const token = res.body.promise.token as string;
      const cancelled = await ask(gw.url, '/await', { promise_token: token, action: 'cancel' });
      expect(cancelled.body.error.code).toBe('CANCELLED');
      await expect.poll(() => upstream.cancelled.size, { timeout: 5000, interval: 50 }).toBe(before + 1);
    });
  }
});
