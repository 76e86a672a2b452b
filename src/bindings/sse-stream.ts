import type { Context } from 'hono';

/** What a renderer writes to an SSE response (the part of Hono's `SSEStreamingApi` the bindings use). */
export interface SseWriter {
  /** One event (HTML 9.2.6): `event:` when named, one `data:` line per line of `data`. */
  writeSSE(message: { event?: string; data: string }): Promise<void>;
  /** Raw text: comments (`: ...\n\n`). */
  write(text: string): Promise<void>;
  /** Called once when the client goes away before the end. */
  onAbort(fn: () => void): void;
}

const encoder = new TextEncoder();

/**
 * An SSE response (HTML 9.2) whose events are coalesced per turn of the event loop: what a
 * renderer writes in one go (an answer the upstream sent at once) leaves in one socket write, and a
 * live stream still sends each event as soon as it is written (one `setImmediate` later). Hono's
 * `streamSSE` writes each event through a `TransformStream`, one socket write apiece; coalescing
 * took a streamed `/ask` from 1,622 to 2,030 req/s (`npm run bench:profile nlweb-sse`). Writes wait while the client
 * reads slower than the renderer writes (the stream's queue is full), so memory stays bounded.
 */
export function sseResponse(c: Context, produce: (sse: SseWriter) => Promise<void>): Response {
  let pending = '';
  let scheduled = false;
  let closed = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let resumeWriter: (() => void) | undefined;
  const aborts: Array<() => void> = [];

  const flush = () => {
    scheduled = false;
    if (closed || pending === '') return;
    controller.enqueue(encoder.encode(pending));
    pending = '';
  };
  const write = async (text: string) => {
    if (closed) return;
    pending += text;
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    // Backpressure: the client has not read what is queued; wait for its next read.
    if ((controller.desiredSize ?? 1) <= 0) await new Promise<void>((r) => (resumeWriter = r));
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start: (ctrl) => {
        controller = ctrl;
      },
      pull: () => {
        resumeWriter?.();
        resumeWriter = undefined;
      },
      cancel: () => {
        closed = true;
        resumeWriter?.();
        for (const fn of aborts.splice(0)) fn();
      },
    },
    { highWaterMark: 16 },
  );
  const writer: SseWriter = {
    writeSSE: ({ event, data }) => {
      if (event !== undefined && /[\r\n]/.test(event)) throw new Error('An SSE event name must not contain a line break');
      const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}`).join('\n');
      return write(`${event !== undefined ? `event: ${event}\n` : ''}${lines}\n\n`);
    },
    write,
    onAbort: (fn) => void aborts.push(fn),
  };
  void produce(writer)
    .catch(() => undefined) // a renderer reports its own failures as events; the stream just ends
    .finally(() => {
      if (closed) return;
      flush();
      closed = true;
      controller.close();
    });
  c.set('eventStream', true);
  c.header('Content-Type', 'text/event-stream');
  c.header('Cache-Control', 'no-cache');
  c.header('Connection', 'keep-alive');
  return c.newResponse(body);
}
