/**
 * The SSE answer of one 2025 POST exchange answered without the SDK (session-fast-path.ts), framed
 * as the SDK's `WebStandardStreamableHTTPServerTransport` frames it on the legacy endpoint
 * (stateless: no `Mcp-Session-Id` on the answer, no event ids and no priming event, since the
 * gateway keeps no event store): 200 with the transport's headers, one `event: message` frame per
 * JSON-RPC message, a `: keepalive` comment every 15 s while the answer is pending, closed after it.
 */

/** The SDK transport's keep-alive interval (`DEFAULT_SSE_KEEP_ALIVE_MS`). */
const KEEPALIVE_MS = 15_000;

/**
 * An answer ready within this long goes out as one write, headers and body together; a slower one
 * gets its headers then and its body when ready, as the SDK's stream does from the start. One write
 * instead of two was ≈ 10% of a session `tools/call`'s CPU (`npm run bench:profile mcp`:
 * `flushHeaders` → `writeUtf8String` for the headers alone); a call slower than this costs far more
 * than that second write. The SDK path's own framing already varies with timing (@hono/node-server
 * sends a stream that ends within a tick as one write with a Content-Length, otherwise chunked).
 */
export const ONE_WRITE_WITHIN_MS = 100;

/** The SDK transport's SSE headers, in the order @hono/node-server writes them (sorted, lower-case). */
function sseHeaders(): Record<string, string> {
  return { 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'content-type': 'text/event-stream', 'x-accel-buffering': 'no' };
}

/** One JSON-RPC message as the SDK transport's `writeSSEEvent` frames it (no event id). */
export function sseFrame(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

const encoder = new TextEncoder();

/** The SSE answers that went out whole (one write): no stream stays open behind them. */
const whole = new WeakSet<Response>();

/** An SSE answer whose whole body is a string, already complete. */
function wholeAnswer(text: string): Response {
  const res = new Response(text, { status: 200, headers: sseHeaders() });
  whole.add(res);
  return res;
}

/**
 * Whether `res` is an SSE answer that went out in one write, complete: the binding tells the HTTP
 * telemetry so, which then neither reads its headers nor waits for its end (each ≈ 1–2 µs of a
 * session call; a streamed answer is still timed to its last byte).
 */
export function isWholeAnswer(res: Response): boolean {
  return whole.has(res);
}

/** An answer that is ready: headers and its one message in one write. */
export function oneWriteAnswer(message: unknown): Response {
  return wholeAnswer(sseFrame(message));
}

/**
 * One exchange's SSE answer: `response` resolves with a one-write answer when `end` comes within
 * ONE_WRITE_WITHIN_MS, else at that time with a streamed one that `end` completes. `onCancel` is
 * told when the client stops reading a streamed answer.
 */
export class SseAnswer {
  readonly response: Promise<Response>;
  private resolve!: (response: Response) => void;
  private state: 'waiting' | 'streaming' | 'ended' = 'waiting';
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly onCancel: () => void = () => undefined,
    oneWriteWithinMs: number = ONE_WRITE_WITHIN_MS,
  ) {
    this.response = new Promise((resolve) => (this.resolve = resolve));
    this.timer = setTimeout(() => this.stream(oneWriteWithinMs), oneWriteWithinMs);
  }

  /** Ends the answer with its JSON-RPC response, or with none (a cancelled or closed exchange). */
  end(message?: unknown): void {
    clearTimeout(this.timer);
    const text = message === undefined ? '' : sseFrame(message);
    if (this.state === 'waiting') this.resolve(wholeAnswer(text));
    else if (this.state === 'streaming') {
      try {
        if (text) this.controller!.enqueue(encoder.encode(text));
        this.controller!.close();
      } catch {
        // The client has gone: there is no one left to answer.
      }
    }
    this.state = 'ended';
  }

  /** The answer is late: its headers go now, its body when `end` comes, kept alive meanwhile. */
  private stream(elapsedMs: number): void {
    if (this.state !== 'waiting') return;
    this.state = 'streaming';
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        clearTimeout(this.timer);
        this.state = 'ended';
        this.onCancel();
      },
    });
    const keepalive = () => {
      if (this.state !== 'streaming') return;
      try {
        this.controller!.enqueue(encoder.encode(': keepalive\n\n'));
      } catch {
        return;
      }
      this.timer = setTimeout(keepalive, KEEPALIVE_MS).unref();
    };
    // The SDK's keep-alive runs from the start of the exchange: the first comment at 15 s, not 15 s from now.
    this.timer = setTimeout(keepalive, Math.max(0, KEEPALIVE_MS - elapsedMs)).unref();
    this.resolve(new Response(body, { status: 200, headers: sseHeaders() }));
  }
}
