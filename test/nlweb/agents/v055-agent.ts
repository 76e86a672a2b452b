/**
 * A true NLWeb v0.55 test agent (spec 3-7), real HTTP, used by the adapter and gateway suites.
 *
 * Endpoints: `POST /ask`, `POST /await`. Answers JSON, or named-event SSE (`start`, `result`,
 * `error`, `complete`, spec 6.1) when the request has `Accept: text/event-stream` or
 * `prefer.streaming: true`. With `prefer.response_format: "chatgpt_app"` a JSON answer uses the
 * ChatGPT App structure. `prefer.mode` containing `summarize` adds a SearchSummary item first.
 *
 * Sessions: every answer carries `_meta.session_context = {conversation_id, upstream_session}`.
 * `upstream_session` is 1 on a call without session_context and n+1 when `{upstream_session: n}`
 * is sent back, so a test can prove the gateway returned the upstream's own session_context.
 * `_meta.debug` echoes the query, context and meta the agent received; `received` records every
 * request (path, headers, body) for inspection.
 *
 * Behaviours (`opts.behaviour`, else the first of these words in `query.text`):
 * - `answer` (default): `opts.results` items (default 3).
 * - `slow`: waits `opts.slowMs` (default 300) before answering.
 * - `promise`: 202 promise; `/await` checkin answers after `opts.promiseCheckins` (default 2)
 *   checkins (earlier ones get a new promise with progress); cancel answers failure CANCELLED.
 * - `elicit`: elicitation with two questions (JSON).
 * - `fail`: failure NO_RESULTS (HTTP 200; in SSE: `start`, `error`, `complete`).
 * - `recoverable`: SSE `start`, result, `error` TOKEN_LIMIT, result, `complete` (JSON: an answer).
 * - `break`: sends `start` and one result (JSON: half a body), then destroys the socket.
 * - `stall`: SSE `start` and one result, then never another byte.
 * - `hang`: never answers (no headers) until the client leaves or the agent closes.
 * - `garbage`: JSON mode `200 text/html` non-JSON body; SSE `start` then `data: <not json>`.
 * - `error500`: HTTP 500 with a text body naming a secret (tests that it never leaks).
 * - `ratelimit`: HTTP 429 with `Retry-After: 7`.
 */
import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { listenApp } from '../../support/http.ts';
import { breakAfter, Holds, queryWords, record, sse, sseResponse, wantsStream, type AgentEnv, type ReceivedRequest } from './wire.ts';

export type { ReceivedRequest } from './wire.ts';

export const V055_BEHAVIOURS = [
  'answer', 'slow', 'promise', 'elicit', 'fail', 'recoverable', 'break', 'stall', 'hang', 'garbage', 'error500', 'ratelimit',
] as const;
export type V055Behaviour = (typeof V055_BEHAVIOURS)[number];

export interface V055AgentOptions {
  /** Forces one behaviour for every `/ask` (else picked by keyword, default `answer`). */
  behaviour?: V055Behaviour;
  /** Items in an answer (default 3). */
  results?: number;
  /** Delay of `slow` in ms (default 300). */
  slowMs?: number;
  /** Checkins on `/await` before a promise completes (default 2). */
  promiseCheckins?: number;
}

export interface V055Agent {
  app: Hono<AgentEnv>;
  received: ReceivedRequest[];
  /** Releases hanging handlers. */
  close(): void;
}

/** The secret the `error500` body contains; a gateway must never show it to a client. */
export const V055_SECRET = 'v055-upstream-secret-detail';
const VERSION = '0.55';

type Body = {
  query?: { text?: string };
  context?: { prev?: string[] };
  prefer?: { response_format?: string; mode?: string };
  meta?: Record<string, unknown> & { session_context?: Record<string, unknown> };
};

/** Creates the agent as a Hono app (serve it with listenApp, or use startV055Agent). */
export function createV055Agent(opts: V055AgentOptions = {}): V055Agent {
  const received: ReceivedRequest[] = [];
  const holds = new Holds();
  const promises = new Map<string, { checkins: number; body: Body }>();
  const count = opts.results ?? 3;
  const app = new Hono<AgentEnv>();

  const pick = (body: Body): V055Behaviour =>
    opts.behaviour ?? (queryWords(body).find((w) => (V055_BEHAVIOURS as readonly string[]).includes(w)) as V055Behaviour | undefined) ?? 'answer';

  app.post('/ask', async (c) => {
    const body = ((await record(c, received)) ?? {}) as Body;
    if (typeof body !== 'object' || typeof body.query?.text !== 'string') {
      return c.json(failure('INVALID_QUERY', 'query.text is required'), 400);
    }
    const stream = wantsStream(c, body);
    const meta = answerMeta(body);
    switch (pick(body)) {
      case 'slow':
        await holds.wait(c, opts.slowMs ?? 300);
        return stream ? streamAnswer(body, meta, count) : c.json(jsonAnswer(body, meta, count));
      case 'promise': {
        const token = `v055-promise-${randomBytes(12).toString('base64url')}`;
        promises.set(token, { checkins: 0, body });
        return c.json({ _meta: { response_type: 'promise', version: VERSION, session_context: meta.session_context }, promise: { token, estimated_time: 1, message: 'Working on it', progress: 0.1 } }, 202);
      }
      case 'elicit':
        return c.json({ _meta: { ...meta, response_type: 'elicitation' }, elicitation: ELICITATION });
      case 'fail':
        if (!stream) return c.json({ ...failure('NO_RESULTS', 'Nothing matched your query.'), _meta: { ...meta, response_type: 'failure' } });
        return sseResponse((async function* () {
          yield sse({ _meta: { response_type: 'failure', version: VERSION, streaming: true } }, 'start');
          yield sse(failure('NO_RESULTS', 'Nothing matched your query.'), 'error');
          yield sse({ _meta: { ...meta, response_type: 'failure' } }, 'complete');
        })());
      case 'recoverable':
        if (!stream) return c.json(jsonAnswer(body, meta, 2));
        return sseResponse((async function* () {
          const [first, second] = items(body, 2);
          yield sse({ _meta: { response_type: 'answer', version: VERSION, streaming: true } }, 'start');
          yield sse({ index: 0, item: first }, 'result');
          yield sse(failure('TOKEN_LIMIT', 'One source was too long; skipped.'), 'error');
          yield sse({ index: 1, item: second }, 'result');
          yield sse({ _meta: meta }, 'complete');
        })());
      case 'break': {
        const [first] = items(body, 1);
        if (stream) {
          breakAfter(c, 'text/event-stream', [
            sse({ _meta: { response_type: 'answer', version: VERSION, streaming: true } }, 'start'),
            sse({ index: 0, item: first }, 'result'),
          ]);
        } else {
          breakAfter(c, 'application/json', [JSON.stringify(jsonAnswer(body, meta, count)).slice(0, 40)]);
        }
        return RESPONSE_ALREADY_SENT;
      }
      case 'stall':
        if (!stream) {
          await holds.wait(c);
          return c.json(jsonAnswer(body, meta, count));
        }
        return sseResponse((async function* () {
          yield sse({ _meta: { response_type: 'answer', version: VERSION, streaming: true } }, 'start');
          yield sse({ index: 0, item: items(body, 1)[0] }, 'result');
          await holds.wait(c);
        })());
      case 'hang':
        await holds.wait(c);
        return c.body(null, 503);
      case 'garbage':
        if (!stream) return c.body('<html><body>Oops, not JSON</body></html>', 200, { 'content-type': 'text/html' });
        return sseResponse((async function* () {
          yield sse({ _meta: { response_type: 'answer', version: VERSION, streaming: true } }, 'start');
          yield sse({ index: 0, item: items(body, 1)[0] }, 'result');
          yield sse('<html>this is not json', 'result');
          yield sse({ index: 1, item: items(body, 2)[1] }, 'result');
        })());
      case 'error500':
        return c.text(`Internal Server Error: ${V055_SECRET}`, 500);
      case 'ratelimit':
        return c.json(failure('RATE_LIMITED', 'slow down'), 429, { 'retry-after': '7' });
      case 'answer':
        return stream ? streamAnswer(body, meta, count) : c.json(jsonAnswer(body, meta, count));
    }
  });

  app.post('/await', async (c) => {
    const body = (await record(c, received)) as { promise_token?: unknown; action?: unknown } | undefined;
    const entry = typeof body?.promise_token === 'string' ? promises.get(body.promise_token) : undefined;
    if (!entry || typeof body?.promise_token !== 'string') return c.json(failure('INVALID_QUERY', 'Unknown promise token'));
    if (body.action === 'cancel') {
      promises.delete(body.promise_token);
      return c.json(failure('CANCELLED', 'The task was cancelled.'));
    }
    entry.checkins += 1;
    const needed = opts.promiseCheckins ?? 2;
    if (entry.checkins < needed) {
      const progress = Math.min(0.9, entry.checkins / needed);
      return c.json({ _meta: { response_type: 'promise', version: VERSION }, promise: { token: body.promise_token, progress, message: `Checkin ${entry.checkins}` } }, 202);
    }
    promises.delete(body.promise_token);
    return c.json(jsonAnswer(entry.body, answerMeta(entry.body), count));
  });

  return { app, received, close: () => holds.releaseAll() };

  function streamAnswer(body: Body, meta: Record<string, unknown>, n: number): Response {
    return sseResponse((async function* () {
      yield sse({ _meta: { response_type: 'answer', version: VERSION, streaming: true } }, 'start');
      for (const [index, item] of allItems(body, n).entries()) yield sse({ index, item }, 'result');
      yield sse({ _meta: meta }, 'complete');
    })());
  }
}

/** Starts the agent on a free loopback port. */
export async function startV055Agent(opts: V055AgentOptions = {}): Promise<{ url: string; received: ReceivedRequest[]; close(): Promise<void> }> {
  const agent = createV055Agent(opts);
  const server = await listenApp(agent.app as unknown as Hono);
  return {
    url: server.url,
    received: agent.received,
    close: async () => {
      agent.close();
      await server.close();
    },
  };
}

/** `_meta` of an answer: version, session_context (upstream_session counter), debug echo. */
function answerMeta(body: Body): Record<string, unknown> {
  const sent = body.meta?.session_context;
  const n = typeof sent?.upstream_session === 'number' ? sent.upstream_session + 1 : 1;
  const conversationId = typeof sent?.conversation_id === 'string' ? sent.conversation_id : `v055-conv-${randomBytes(6).toString('hex')}`;
  return {
    response_type: 'answer',
    response_format: 'conversational_search',
    version: VERSION,
    session_context: { conversation_id: conversationId, upstream_session: n },
    debug: { query: body.query, context: body.context ?? null, meta: body.meta ?? null },
  };
}

function jsonAnswer(body: Body, meta: Record<string, unknown>, n: number): Record<string, unknown> {
  if (body.prefer?.response_format === 'chatgpt_app') {
    return {
      _meta: { ...meta, response_format: 'chatgpt_app' },
      content: [{ type: 'text', text: `Found ${n} results for "${body.query?.text}".` }],
      structuredData: items(body, n),
    };
  }
  return { _meta: meta, results: allItems(body, n) };
}

function allItems(body: Body, n: number): Array<Record<string, unknown>> {
  const summarize = (body.prefer?.mode ?? '').includes('summarize');
  const summary = { '@type': 'SearchSummary', text: `A summary of ${n} results for "${body.query?.text}".` };
  return [...(summarize ? [summary] : []), ...items(body, n)];
}

function items(body: Body, n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({
    '@type': 'Recipe',
    '@id': `https://v055.example/items/${i + 1}`,
    name: `Result ${i + 1} for "${body.query?.text}"`,
    url: `https://v055.example/items/${i + 1}`,
    site: 'v055.example',
    score: Math.round((0.9 - i * 0.05) * 100) / 100,
  }));
}

function failure(code: string, message: string): Record<string, unknown> {
  return { _meta: { response_type: 'failure', version: VERSION }, error: { code, message } };
}

const ELICITATION = {
  text: 'Could you tell me more?',
  questions: [
    { id: 'diet', text: 'Any dietary restrictions?', type: 'multi_select', options: ['vegetarian', 'vegan', 'none'] },
    { id: 'time', text: 'How much time do you have?', type: 'single_select', options: ['under 20 minutes', 'over an hour'] },
  ],
};

