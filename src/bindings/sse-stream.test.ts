import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { sseResponse, type SseWriter } from './sse-stream.ts';

function app(produce: (sse: SseWriter) => Promise<void>): Hono {
  const a = new Hono();
  a.get('/', (c) => sseResponse(c, produce));
  return a;
}

/** The body's chunks as the client receives them. */
async function chunks(res: Response): Promise<string[]> {
  const out: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) out.push(decoder.decode(chunk));
  return out;
}

describe('sseResponse', () => {
  it('writes named events, one data line per line, with the SSE headers', async () => {
    const res = await app(async (sse) => {
      await sse.writeSSE({ event: 'start', data: '{"a":1}' });
      await sse.writeSSE({ data: 'two\nlines' });
      await sse.write(': a comment\n\n');
    }).request('/');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect((await chunks(res)).join('')).toBe('event: start\ndata: {"a":1}\n\ndata: two\ndata: lines\n\n: a comment\n\n');
  });

  it('sends what is written in one turn as one chunk, and a later event as its own', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const res = await app(async (sse) => {
      await sse.writeSSE({ event: 'start', data: '1' });
      await sse.writeSSE({ event: 'result', data: '2' });
      await gate; // the client has the first chunk
      await sse.writeSSE({ event: 'complete', data: '3' });
    }).request('/');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe('event: start\ndata: 1\n\nevent: result\ndata: 2\n\n');
    release();
    expect(decoder.decode((await reader.read()).value)).toBe('event: complete\ndata: 3\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('calls onAbort when the client leaves, and later writes go nowhere', async () => {
    let aborted = false;
    let left!: () => void;
    const gone = new Promise<void>((r) => (left = r));
    let finished!: (late: unknown) => void;
    const done = new Promise<unknown>((r) => (finished = r));
    const res = await app(async (sse) => {
      sse.onAbort(() => (aborted = true));
      await sse.writeSSE({ data: 'first' });
      await gone;
      finished(await sse.writeSSE({ data: 'late' }).then(() => 'resolved', () => 'rejected'));
    }).request('/');
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    await reader.cancel();
    expect(aborted).toBe(true);
    left();
    expect(await done).toBe('resolved');
  });

  it('waits while the client does not read (bounded queue), then goes on', async () => {
    let written = 0;
    const res = await app(async (sse) => {
      for (let i = 0; i < 100; i++) {
        await sse.writeSSE({ data: 'x'.repeat(10) });
        written++;
        await new Promise((r) => setImmediate(r));
      }
    }).request('/');
    await new Promise((r) => setTimeout(r, 100));
    expect(written).toBeLessThan(100); // the producer is held back by the unread queue
    expect((await chunks(res)).join('').split('\n\n').length - 1).toBe(100);
    expect(written).toBe(100);
  });

  it('refuses an event name with a line break (it would inject fields)', async () => {
    let error: unknown;
    const res = await app(async (sse) => {
      try {
        await sse.writeSSE({ event: 'a\ndata: injected', data: 'x' });
      } catch (err) {
        error = err;
      }
    }).request('/');
    expect(await chunks(res)).toEqual([]);
    expect(error).toBeInstanceOf(Error);
  });
});
