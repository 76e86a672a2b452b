/**
 * functionAgent (issue 28): an agent from a function, driven through the gateway in-process —
 * results, streaming, elicitation, slow answers becoming promises (with progress and cancel),
 * the conversation's earlier queries, and what a misbehaving function gets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNlgate, functionAgent, GatewayError, type FunctionAskInput, type Nlgate } from '../../src/index.ts';
import { silentLogger } from '../../src/base/logger.ts';

const seen: FunctionAskInput[] = [];
let cancelled: (reason: unknown) => void = () => undefined;
const wasCancelled = new Promise<unknown>((r) => (cancelled = r));

const agents = [
  functionAgent({
    name: 'faq',
    description: 'Answers from our FAQ',
    ask: ({ query, prev, signal, request, progress }) => {
      seen.push({ query, prev, signal, request, progress });
      return [{ '@type': 'Question', name: `About ${query}`, url: 'https://example.org/faq#1' }];
    },
  }),
  functionAgent({
    name: 'stream',
    ask: async function* ({ query }) {
      for (let i = 1; i <= 3; i++) {
        await new Promise((r) => setTimeout(r, 5));
        yield { '@type': 'Thing', name: `${query} ${i}` };
      }
    },
  }),
  functionAgent({
    name: 'ask-back',
    ask: ({ prev }) =>
      prev.length === 0 ? { elicitation: { text: 'Which size?', questions: [{ id: 'size', text: 'Size', type: 'single_select', options: ['S', 'M'] }] } } : [{ name: `size after ${prev.join(', ')}` }],
  }),
  functionAgent({
    name: 'slow',
    promiseAfterMs: 50,
    ask: async ({ query, signal, progress }) => {
      // Reported once the answer has become a promise (after promiseAfterMs), so its check-ins show it.
      await new Promise((r) => setTimeout(r, 100));
      progress({ progress: 0.5, message: 'half way' });
      if (query === 'forever') {
        await new Promise((_, reject) => signal.addEventListener('abort', () => (cancelled(signal.reason), reject(signal.reason))));
      }
      await new Promise((r) => setTimeout(r, 300));
      return [{ name: `slow ${query}` }];
    },
  }),
  functionAgent({ name: 'empty', ask: () => [] }),
  functionAgent({
    name: 'broken',
    ask: ({ query }) => {
      if (query === 'typed') throw new GatewayError('RATE_LIMITED', 'Try later');
      return ['not an object'] as never;
    },
  }),
];

let gw: Nlgate;
beforeAll(async () => {
  gw = await createNlgate({ agents, store: { kind: 'memory' } }, { logger: silentLogger });
});
afterAll(() => gw.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  gw.fetch(new Request(`http://gw.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }));
const askJson = async (agent: string, text: string, meta?: unknown) => (await post(`/agents/${agent}/ask`, { query: { text }, ...(meta ? { meta } : {}) })).json() as Promise<any>;

describe('functionAgent', () => {
  it('answers with the function results, given the query, the request and a live signal', async () => {
    const body = await askJson('faq', 'returns');
    expect(body._meta.response_type).toBe('answer');
    expect(body.results).toEqual([expect.objectContaining({ '@type': 'Question', name: 'About returns', url: 'https://example.org/faq#1' })]);
    const input = seen.at(-1)!;
    expect(input.query).toBe('returns');
    expect(input.request.query.text).toBe('returns');
    expect(input.signal).toBeInstanceOf(AbortSignal);
  });

  it('hands the function the earlier queries of the conversation', async () => {
    const first = await askJson('faq', 'shipping');
    await askJson('faq', 'to Norway', { session_context: first._meta.session_context });
    expect(seen.at(-1)!.prev).toEqual(['shipping']);
  });

  it('streams an async iterable as SSE result events', async () => {
    const res = await post('/agents/stream/ask', { query: { text: 'part' } }, { accept: 'text/event-stream' });
    const text = await res.text();
    const results = [...text.matchAll(/event: result\ndata: (.*)/g)].map((m) => JSON.parse(m[1]!).item.name);
    expect(results).toEqual(['part 1', 'part 2', 'part 3']);
    expect(text).toContain('event: complete');
  });

  it('asks the user back (elicitation), then answers the follow-up', async () => {
    const first = await askJson('ask-back', 'a shirt');
    expect(first._meta.response_type).toBe('elicitation');
    expect(first.elicitation.questions[0].options).toEqual(['S', 'M']);
    const second = await askJson('ask-back', 'M', { session_context: first._meta.session_context });
    expect(second.results[0].name).toBe('size after a shirt');
  });

  it('turns a slow answer into a promise whose check-in shows progress, then the answer', async () => {
    const res = await post('/agents/slow/ask', { query: { text: 'report' } });
    expect(res.status).toBe(202);
    const promise = ((await res.json()) as any).promise;
    const done = (await (await post('/await', { promise_token: promise.token, action: 'checkin', wait_ms: 5000 })).json()) as any;
    expect(done.results[0].name).toBe('slow report');
  });

  it('aborts the function signal when the promise is cancelled', async () => {
    const res = await post('/agents/slow/ask', { query: { text: 'forever' } });
    const promise = ((await res.json()) as any).promise;
    let pending: any;
    for (let i = 0; i < 40 && pending?.promise?.message !== 'half way'; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      pending = await (await post('/await', { promise_token: promise.token, action: 'checkin' })).json();
      expect(pending._meta.response_type).toBe('promise');
    }
    expect(pending.promise).toMatchObject({ message: 'half way', progress: 0.5 });
    const cancel = (await (await post('/await', { promise_token: promise.token, action: 'cancel' })).json()) as any;
    expect(cancel.error.code).toBe('CANCELLED');
    expect(await wasCancelled).toBeDefined();
  });

  it('answers NO_RESULTS for no results, its own error for a thrown GatewayError, an internal error for a non-object result', async () => {
    expect((await askJson('empty', 'x')).error.code).toBe('NO_RESULTS');
    expect((await askJson('broken', 'typed')).error.code).toBe('RATE_LIMITED');
    const bad = await askJson('broken', 'other');
    expect(bad.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(bad)).not.toContain('not an object');
  });
});
