import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseAnswer, isWholeAnswer, oneWriteAnswer, sseFrame } from './sse-answer.ts';

const message = { result: {}, jsonrpc: '2.0', id: 1 };
const HEADERS = { 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'content-type': 'text/event-stream', 'x-accel-buffering': 'no' };

function headersOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => (out[k] = v));
  return out;
}

async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value, done } = await reader.read();
  return done ? '<end>' : new TextDecoder().decode(value);
}

afterEach(() => vi.useRealTimers());

describe('an SSE answer framed as the SDK transport frames it (issue 25)', () => {
  it('frames a message as one `event: message` with no event id', () => {
    expect(sseFrame(message)).toBe('event: message\ndata: {"result":{},"jsonrpc":"2.0","id":1}\n\n');
  });

  it('an answer ready in time goes out whole: the SDK headers and the one frame', async () => {
    const answer = new SseAnswer(undefined, 1000);
    answer.end(message);
    const res = await answer.response;
    expect(res.status).toBe(200);
    expect(headersOf(res)).toEqual(HEADERS);
    expect(await res.text()).toBe(sseFrame(message));
  });

  it('a late answer gets its headers at the deadline, then keep-alives every 15 s from the start, then its frame', async () => {
    vi.useFakeTimers();
    const answer = new SseAnswer(undefined, 100);
    await vi.advanceTimersByTimeAsync(100);
    const res = await answer.response;
    expect(headersOf(res)).toEqual(HEADERS);
    const reader = res.body!.getReader();
    const first = readChunk(reader);
    await vi.advanceTimersByTimeAsync(14_899);
    await vi.advanceTimersByTimeAsync(1);
    expect(await first).toBe(': keepalive\n\n');
    const second = readChunk(reader);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(await second).toBe(': keepalive\n\n');
    answer.end(message);
    expect(await readChunk(reader)).toBe(sseFrame(message));
    expect(await readChunk(reader)).toBe('<end>');
  });

  it('an answer ended without a message is an empty stream; one the client stopped reading tells onCancel', async () => {
    const empty = new SseAnswer(undefined, 1000);
    empty.end();
    expect(await (await empty.response).text()).toBe('');

    vi.useFakeTimers();
    const cancelled = vi.fn();
    const late = new SseAnswer(cancelled, 10);
    await vi.advanceTimersByTimeAsync(10);
    await (await late.response).body!.cancel();
    expect(cancelled).toHaveBeenCalledOnce();
    late.end(message); // nobody is left to read it: no error
  });

  it('tells a whole answer (one write, complete) from a streamed one, which the telemetry must time to its end', async () => {
    expect(isWholeAnswer(oneWriteAnswer(message))).toBe(true);
    const inTime = new SseAnswer(undefined, 1000);
    inTime.end(message);
    expect(isWholeAnswer(await inTime.response)).toBe(true);

    vi.useFakeTimers();
    const late = new SseAnswer(undefined, 10);
    await vi.advanceTimersByTimeAsync(10);
    const streamed = await late.response;
    expect(isWholeAnswer(streamed)).toBe(false);
    late.end(message);
    expect(isWholeAnswer(new Response(sseFrame(message)))).toBe(false);
  });
});
