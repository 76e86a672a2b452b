import type { AgentEvent } from '../../src/core/events.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { UpstreamResponse } from '../../src/core/upstream/index.ts';
import { readSse, type SseMessage } from '../../src/protocol/sse.ts';
import type { LegacyFrameReader } from './frames.ts';
import { splitConcatenatedJson } from './json-splitter.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON.parse that answers `undefined` for anything that is not JSON (an SSE `data:` line may be anything). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** SSE `data:` frames as JSON values, as they arrive; comments (`: keepalive`) are dropped by readSse. */
export async function* sseFrames(messages: AsyncIterable<SseMessage>, agent = 'upstream'): AsyncGenerator<unknown> {
  for await (const message of messages) {
    const value = parseJson(message.data);
    if (value !== undefined) {
      yield value;
      continue;
    }
    // Some servers put several frames on one `data:` line, back to back.
    const split = splitConcatenatedJson(message.data);
    yield* split.values;
    // Garbage between frames is skipped, but a frame the stream ended in the middle of is a cut stream.
    if (message.incomplete && split.rest.trim() !== '') {
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" ended its stream in the middle of a frame`);
    }
  }
}

/**
 * The frames inside a non-streaming reply: the mid-2025 object (`results`, `summary`), the late-2025
 * array of messages, the mid-2025 `/mcp` envelope (`{"type":"function_response","response":…}`), or
 * text holding frames back to back (the later `/mcp`'s text item).
 */
export function framesOfValue(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(framesOfValue);
  if (typeof value === 'string') return splitConcatenatedJson(value).values.flatMap(framesOfValue);
  if (!isObject(value)) return [];
  if (value.type === 'function_response') {
    if (value.status === 'error') return [{ message_type: 'error', error: value.error }];
    return framesOfValue(value.response);
  }
  return [value];
}

/** Whether a reply is SSE: by its content type, which every generation sets. */
export function isEventStream(res: UpstreamResponse): boolean {
  return res.isEventStream;
}

async function* once(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

/** The frames of an `/ask` or function-call `/mcp` reply: SSE as it arrives, JSON at once. */
export async function* replyFrames(res: UpstreamResponse, agent: string, signal: AbortSignal): AsyncGenerator<unknown> {
  if (isEventStream(res)) {
    yield* sseFrames(res.sse(), agent);
    return;
  }
  const text = await res.text();
  // Some servers label SSE as text/plain; a body of `data:` lines is still SSE.
  if (/^\s*(data:|:|event:)/.test(text)) {
    yield* sseFrames(readSse(once(text), { signal }), agent);
    return;
  }
  const value = parseJson(text);
  if (value === undefined) {
    const split = splitConcatenatedJson(text);
    if (split.values.length === 0) throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered with a body that is not JSON`);
    yield* split.values.flatMap(framesOfValue);
    return;
  }
  yield* framesOfValue(value);
}

/**
 * Runs frames through the reader and yields canonical events as they come (events.ts): `start`
 * at the first event (its `_meta` carries the decontextualized query when that came first), then
 * results, and `complete` with the final `_meta` at the end of the answer or at EOF (EOF = done,
 * interop.md). An empty reply is an upstream failure, not an empty answer.
 */
export async function* eventsFromFrames(frames: AsyncIterable<unknown>, reader: LegacyFrameReader, agent: string): AsyncGenerator<AgentEvent> {
  let started = false;
  const meta = (): Record<string, unknown> | undefined =>
    reader.decontextualizedQuery ? { decontextualized_query: reader.decontextualizedQuery } : undefined;
  const start = (): AgentEvent => {
    started = true;
    const m = meta();
    return m ? { type: 'start', meta: m } : { type: 'start' };
  };
  for await (const frame of frames) {
    const events = reader.push(frame);
    if (events.length > 0 && !started) yield start();
    yield* events;
    if (reader.done) break;
  }
  if (!reader.done) {
    const tail = reader.finish();
    if (tail.length > 0 && !started) yield start();
    yield* tail;
  }
  if (!reader.sawFrame) throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" ended its reply without answering`);
  if (!started) yield start();
  const m = meta();
  yield m ? { type: 'complete', meta: m } : { type: 'complete' };
}
