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

/**
 * Reads an SSE body incrementally (no buffering of the whole answer). Comments (`: keepalive`) are
 * dropped by the parser. Yields each event as soon as its blank line arrives; ends at EOF.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage> {
  const queue: SseMessage[] = [];
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => queue.push({ event: m.event, data: m.data, id: m.id }),
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    while (true) {
      if (signal?.aborted) throw signal.reason ?? new DOMException('aborted', 'AbortError');
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
    // A final event without its blank line is still an event (v0.54 streams that just end).
    parser.feed(decoder.decode() + '\n\n');
    while (queue.length > 0) yield { ...queue.shift()!, incomplete: true };
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

/** Formats one SSE event: `event:` line when named, `data:` lines (multi-line safe), blank line. */
export function formatSse(data: unknown, event?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  const lines = text.split(/\r\n|\r|\n/).map((l) => `data: ${l}`);
  return `${event ? `event: ${event}\n` : ''}${lines.join('\n')}\n\n`;
}
