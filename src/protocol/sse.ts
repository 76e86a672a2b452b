import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One server-sent event as read off the wire (HTML Living Standard 9.2). */
export interface SseMessage {
  event?: string;
  data: string;
  id?: string;
  /**
   * Set on an event the stream ended in the middle of: EOF came before its blank line. A reader that
   * cannot make sense of such an event knows the stream was cut, not that the upstream sent garbage.
   */
  incomplete?: true;
}

/** Thrown by readSse when one event grows past `maxEventBytes` before its blank line arrives. */
export class SseEventTooLargeError extends Error {
  override readonly name = 'SseEventTooLargeError';
  constructor(readonly limit: number) {
    super(`A server-sent event is larger than ${limit} bytes`);
  }
}

export interface ReadSseOptions {
  signal?: AbortSignal;
  /**
   * Largest event accepted, in bytes of the wire form. Checked as data arrives, so at most this
   * plus one read chunk is ever held for an event that never ends.
   */
  maxEventBytes?: number;
}

type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/**
 * Reads an SSE body incrementally (HTML 9.2.6; no buffering of the whole answer). Comments
 * (`: keepalive`) are dropped by the parser. Yields each event as soon as its blank line arrives;
 * ends at EOF. Takes a web stream or any async iterable of bytes (a Node stream).
 */
export async function* readSse(body: ByteSource, opts: ReadSseOptions | AbortSignal = {}): AsyncGenerator<SseMessage> {
  const { signal, maxEventBytes = Infinity } = opts instanceof AbortSignal ? { signal: opts } : opts;
  const queue: SseMessage[] = [];
  // Bytes fed since the last complete event: the size of the event being assembled (approximately:
  // the tail of a chunk that completed an event counts towards the next one).
  let pending = 0;
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => {
      pending = 0;
      queue.push(m);
    },
  });
  const decoder = new TextDecoder();
  const iterator = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  try {
    while (true) {
      if (signal?.aborted) throw signal.reason ?? new DOMException('aborted', 'AbortError');
      const { done, value } = await iterator.next();
      if (done) break;
      const before = queue.length;
      parser.feed(decoder.decode(value, { stream: true }));
      if (queue.length === before) {
        pending += value.byteLength;
        if (pending > maxEventBytes) throw new SseEventTooLargeError(maxEventBytes);
      }
      while (queue.length > 0) yield queue.shift()!;
    }
    // A final event without its blank line is still an event (v0.54 streams that just end).
    parser.feed(decoder.decode() + '\n\n');
    while (queue.length > 0) yield { ...queue.shift()!, incomplete: true };
  } finally {
    await iterator.return?.(undefined)?.catch(() => undefined);
  }
}

/** Formats one SSE event: `event:` line when named, `data:` lines (multi-line safe), blank line. */
export function formatSse(data: unknown, event?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  const lines = text.split(/\r\n|\r|\n/).map((l) => `data: ${l}`);
  return `${event ? `event: ${event}\n` : ''}${lines.join('\n')}\n\n`;
}
