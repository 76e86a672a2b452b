/**
 * Wire helpers shared by the NLWeb test agents (v055-agent.ts, v054-agent.ts): SSE bodies written
 * frame by frame, waits that end when the client goes away or the agent closes, and a record of
 * every request an agent received.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

/** One request as the test agent saw it, for tests to inspect (`agent.received`). */
export interface ReceivedRequest {
  path: string;
  /** Header names lower case. */
  headers: Record<string, string>;
  /** The JSON body, or the raw text when it was not JSON. */
  body: unknown;
}

/** Hono env of a test agent served by @hono/node-server (raw socket access for `break`). */
export type AgentEnv = { Bindings: HttpBindings };

/** Reads and records a request body. */
export async function record(c: Context<AgentEnv>, received: ReceivedRequest[]): Promise<unknown> {
  const text = await c.req.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, key) => {
    headers[key] = value;
  });
  received.push({ path: new URL(c.req.url).pathname, headers, body });
  return body;
}

/** True when the request asks for SSE (spec 3.3 `prefer.streaming`, 7.3 `Accept`). */
export function wantsStream(c: Context<AgentEnv>, body: unknown): boolean {
  const prefer = (body as { prefer?: { streaming?: unknown } } | undefined)?.prefer;
  return (c.req.header('accept') ?? '').includes('text/event-stream') || prefer?.streaming === true;
}

/** Tracks pending waits so `close()` releases every hanging handler. */
export class Holds {
  private readonly releases = new Set<() => void>();

  /** Waits `ms` (forever when undefined) or until the client disconnects or the agent closes. */
  wait(c: Context<AgentEnv>, ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      const outgoing = c.env?.outgoing;
      const release = () => done();
      this.releases.add(release);
      outgoing?.once('close', release);
      c.req.raw.signal.addEventListener('abort', release, { once: true });
      const self = this;
      function done(): void {
        if (timer) clearTimeout(timer);
        self.releases.delete(release);
        outgoing?.off('close', release);
        resolve();
      }
    });
  }

  /** Releases every wait (agent shutdown). */
  releaseAll(): void {
    for (const release of [...this.releases]) release();
  }
}

/** One SSE event (HTML Living Standard 9.2): optional `event:` line, one `data:` line, blank line. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** An SSE response whose frames are written as the generator yields them (real streaming). */
export function sseResponse(frames: AsyncIterable<string>): Response {
  const iterator = frames[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

/**
 * Writes `chunks` straight to the socket and then destroys it mid-response (chunked encoding, no
 * terminating chunk): the client sees a connection reset halfway through the body.
 */
export function breakAfter(c: Context<AgentEnv>, contentType: string, chunks: string[]): void {
  const outgoing = c.env.outgoing;
  outgoing.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  for (const chunk of chunks) outgoing.write(chunk);
  setTimeout(() => outgoing.socket?.destroy(), 30);
}

/** The words of a query text, lower case (behaviours are picked by keyword). */
export function queryWords(body: unknown): string[] {
  const text = (body as { query?: { text?: unknown } } | undefined)?.query?.text;
  return typeof text === 'string' ? text.toLowerCase().split(/[^a-z0-9_]+/).filter(Boolean) : [];
}
