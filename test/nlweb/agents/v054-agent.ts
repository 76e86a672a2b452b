/**
 * An NLWeb v0.54-style test agent (spec v0.54, and what its first-party server sends, interop.md),
 * real HTTP, used by the adapter and gateway suites.
 *
 * Endpoints: `POST /ask`, `POST /await`. Differences from v0.55 it reproduces:
 * - `_meta` uses `response_type` in capitals (`Answer`, `Elicitation`, `Failure`) and `api_version`;
 * - streams (asked for by `Accept: text/event-stream` or `prefer.streaming: true`) are `data:` lines
 *   without `event:` names: first `{"_meta": ...}`, then `{"results": [...]}` chunks of
 *   `opts.chunkSize` (default 2), maybe `{"elicitation"}` or `{"error"}`, with `: keepalive`
 *   comments between, and then the stream just ends (no terminal frame);
 * - failures arrive with HTTP 200 (inside the stream when streaming);
 * - a promise follows the v0.54 example: `response_type` at the top level, no `_meta`.
 *
 * `session_context` is `{conversation_id}` (kept when sent back). `received` records every request.
 *
 * Behaviours (`opts.behaviour`, else the first of these words in `query.text`): `answer` (default,
 * `opts.results` items, default 3), `elicit`, `fail` (NO_RESULTS), `chatgpt` (JSON ChatGPT App
 * structure: `content` + `structuredData`), `promise` (`/await` answers on the first checkin).
 */
import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { listenApp } from '../../support/http.ts';
import { record, sse, sseResponse, queryWords, wantsStream, type AgentEnv, type ReceivedRequest } from './wire.ts';

export type { ReceivedRequest } from './wire.ts';

export const V054_BEHAVIOURS = ['answer', 'elicit', 'fail', 'chatgpt', 'promise'] as const;
export type V054Behaviour = (typeof V054_BEHAVIOURS)[number];

export interface V054AgentOptions {
  behaviour?: V054Behaviour;
  /** Items in an answer (default 3). */
  results?: number;
  /** Items per `{"results": [...]}` frame (default 2). */
  chunkSize?: number;
}

export interface V054Agent {
  app: Hono<AgentEnv>;
  received: ReceivedRequest[];
  close(): void;
}

const API_VERSION = '0.54';
type Body = { query?: { text?: string }; meta?: { session_context?: { conversation_id?: unknown } } };

/** Creates the agent as a Hono app (serve it with listenApp, or use startV054Agent). */
export function createV054Agent(opts: V054AgentOptions = {}): V054Agent {
  const received: ReceivedRequest[] = [];
  const promises = new Map<string, Body>();
  const count = opts.results ?? 3;
  const chunkSize = Math.max(1, opts.chunkSize ?? 2);
  const app = new Hono<AgentEnv>();

  app.post('/ask', async (c) => {
    const body = ((await record(c, received)) ?? {}) as Body;
    const behaviour =
      opts.behaviour ?? (queryWords(body).find((w) => (V054_BEHAVIOURS as readonly string[]).includes(w)) as V054Behaviour | undefined) ?? 'answer';
    const stream = wantsStream(c, body) && behaviour !== 'chatgpt' && behaviour !== 'promise';
    const frames = replyFrames(body, behaviour);
    if (behaviour === 'promise') {
      const token = `v054-promise-${randomBytes(12).toString('base64url')}`;
      promises.set(token, body);
      return c.json({ response_type: 'promise', promise: { token, estimated_time: 120 } }, 202);
    }
    if (!stream) return c.json(mergeFrames(frames));
    return sseResponse((async function* () {
      for (const frame of frames) {
        yield sse(frame);
        yield ': keepalive\n\n';
      }
    })());
  });

  app.post('/await', async (c) => {
    const body = (await record(c, received)) as { promise_token?: unknown; action?: unknown } | undefined;
    const asked = typeof body?.promise_token === 'string' ? promises.get(body.promise_token) : undefined;
    if (!asked || typeof body?.promise_token !== 'string') {
      return c.json({ _meta: { response_type: 'Failure' }, error: { code: 'INVALID_QUERY', message: 'Unknown promise' } });
    }
    promises.delete(body.promise_token);
    if (body.action === 'cancel') return c.json({ _meta: { response_type: 'Failure' }, error: { code: 'CANCELLED', message: 'Cancelled' } });
    return c.json(mergeFrames(replyFrames(asked, 'answer')));
  });

  /** The frames of one reply; a JSON reply is the frames merged into one object. */
  function replyFrames(body: Body, behaviour: V054Behaviour): Array<Record<string, unknown>> {
    const conversationId = typeof body.meta?.session_context?.conversation_id === 'string'
      ? body.meta.session_context.conversation_id
      : `v054-conv-${randomBytes(6).toString('hex')}`;
    const meta = (type: string) => ({
      _meta: { response_type: type, api_version: API_VERSION, session_context: { conversation_id: conversationId } },
    });
    const all = items(body, count);
    switch (behaviour) {
      case 'elicit':
        return [meta('Elicitation'), { elicitation: { text: 'Which cuisine?', questions: [{ id: 'cuisine', text: 'Which cuisine?', type: 'free_text' }] } }];
      case 'fail':
        return [{ _meta: { response_type: 'Failure' } }, { error: { code: 'NO_RESULTS', message: 'No results for that.' } }];
      case 'chatgpt':
        return [
          { _meta: { ...meta('Answer')._meta, response_format: 'chatgpt_app', 'openai/widgetAccessible': false } },
          { content: [{ type: 'text', text: `Here are ${all.length} results.` }], structuredData: all },
        ];
      default: {
        const chunks: Array<Record<string, unknown>> = [];
        for (let i = 0; i < all.length; i += chunkSize) chunks.push({ results: all.slice(i, i + chunkSize) });
        return [meta('Answer'), ...(chunks.length > 0 ? chunks : [{ results: [] }])];
      }
    }
  }

  return {
    app,
    received,
    close: () => undefined,
  };
}

/** Starts the agent on a free loopback port. */
export async function startV054Agent(opts: V054AgentOptions = {}): Promise<{ url: string; received: ReceivedRequest[]; close(): Promise<void> }> {
  const agent = createV054Agent(opts);
  const server = await listenApp(agent.app as unknown as Hono);
  return { url: server.url, received: agent.received, close: () => server.close() };
}

/** A JSON reply is the stream's frames in one object, the `results` chunks joined into one list. */
function mergeFrames(frames: Array<Record<string, unknown>>): Record<string, unknown> {
  const merged: Record<string, unknown> = Object.assign({}, ...frames);
  const results = frames.flatMap((f) => (Array.isArray(f.results) ? f.results : []));
  if (frames.some((f) => 'results' in f)) merged.results = results;
  return merged;
}

function items(body: Body, n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({
    '@type': 'Recipe',
    '@id': `https://v054.example/recipes/${i + 1}`,
    name: `Recipe ${i + 1} for "${body.query?.text}"`,
    url: `https://v054.example/recipes/${i + 1}`,
    site: 'v054.example',
    score: 90 - i,
  }));
}
