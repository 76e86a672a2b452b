import type { Readable } from 'node:stream';
import { readSse, SseEventTooLargeError, type SseMessage } from '../../protocol/sse.ts';
import { GatewayError } from '../../base/errors.ts';
import { upstreamChannels, type UpstreamExchange } from '../upstream-events.ts';
import { bodyError, tooLargeError } from './errors.ts';

/** Response headers as undici gives them (lower-case names), with the two Fetch accessors adapters use. */
export class UpstreamHeaders {
  constructor(readonly raw: Record<string, string | string[] | undefined>) {}

  /** Fetch `Headers.get`: the value, several joined with ", ", or null. */
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    if (v === undefined) return null;
    return typeof v === 'string' ? v : v.join(', ');
  }

  /** Fetch `Headers.getSetCookie`: each `Set-Cookie` line (RFC 6265 3). */
  getSetCookie(): string[] {
    const v = this.raw['set-cookie'];
    return v === undefined ? [] : typeof v === 'string' ? [v] : v;
  }

  /** Plain name → value (several joined), for events and the Fetch `Response` of `fetch()`. */
  toRecord(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name in this.raw) {
      const v = this.raw[name];
      if (v !== undefined) out[name] = typeof v === 'string' ? v : v.join(', ');
    }
    return out;
  }
}

/** What reading a body needs: the caps, the caller's signal and the exchange to report on. */
export interface BodyContext {
  agent: string;
  maxBodyBytes: number;
  maxEventBytes: number;
  signal: AbortSignal | undefined;
  exchange: UpstreamExchange | undefined;
}

/**
 * An upstream reply whose body is read at most once, through one of the capped readers: `text` /
 * `json` (whole body, at most `maxUpstreamBodyBytes`), `sse` (event by event, each at most
 * `maxUpstreamEventBytes`), `webStream` (for SDK transports). Over a cap the body is destroyed,
 * which drops the connection: nothing past the cap is buffered or read.
 */
export class UpstreamResponse {
  readonly ok: boolean;
  private bytes = 0;
  private ended = false;

  constructor(
    readonly status: number,
    readonly headers: UpstreamHeaders,
    private readonly body: Readable,
    private readonly bc: BodyContext,
  ) {
    this.ok = status >= 200 && status < 300;
    if (bc.exchange) body.once('close', () => this.finish(undefined));
  }

  /** Whether the reply is an SSE stream (HTML 9.2: `text/event-stream`). */
  get isEventStream(): boolean {
    const type = this.headers.raw['content-type'];
    return typeof type === 'string' && type.toLowerCase().includes('text/event-stream');
  }

  /**
   * The whole body as UTF-8 text, at most `maxUpstreamBodyBytes` (checked before and while reading).
   * Read with the stream's own events rather than `for await`: the async iterator Node makes for a
   * Readable (a generator, end-of-stream listeners, a promise per chunk) cost more than the rest of
   * reading a small JSON answer (issue 25).
   */
  text(): Promise<string> {
    const { maxBodyBytes, agent, signal } = this.bc;
    const body = this.body;
    return new Promise<string>((resolve, reject) => {
      if (Number(this.headers.raw['content-length']) > maxBodyBytes) return this.rejectWith(reject, tooLargeError(agent, 'reply', maxBodyBytes));
      if (body.readableEnded) return resolve('');
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        body.off('data', onData);
        body.off('end', onEnd);
        body.off('error', onError);
        body.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBodyBytes) return onError(tooLargeError(agent, 'reply', maxBodyBytes));
        this.count(chunk);
        chunks.push(chunk);
      };
      const onEnd = () => {
        done();
        resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
      };
      const onError = (err: unknown) => {
        done();
        this.rejectWith(reject, bodyError(err, agent, signal));
      };
      // Destroyed before its end without an error of its own (the connection went): what `for await` reports as a premature close.
      const onClose = () => onError(new Error('The upstream body closed before its end'));
      body.on('data', onData);
      body.once('end', onEnd);
      body.once('error', onError);
      body.once('close', onClose);
      if (body.destroyed) onClose();
    });
  }

  /** The whole body as JSON; a body that is not JSON is UPSTREAM_ERROR, never a SyntaxError. */
  async json(): Promise<unknown> {
    const text = await this.text();
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.bc.agent}" answered with a body that is not JSON`, { cause: err });
    }
  }

  /** The body as server-sent events (HTML 9.2.6), as they arrive; each at most `maxUpstreamEventBytes`. */
  async *sse(): AsyncGenerator<SseMessage> {
    try {
      yield* readSse(this.counted(), { maxEventBytes: this.bc.maxEventBytes });
    } catch (err) {
      const mapped = err instanceof SseEventTooLargeError ? tooLargeError(this.bc.agent, 'event', this.bc.maxEventBytes) : bodyError(err, this.bc.agent, this.bc.signal);
      this.fail(mapped);
    } finally {
      this.release();
    }
  }

  /**
   * The body as a web stream for SDK transports: an SSE body capped per event (counted between
   * blank lines), anything else capped as a whole. Over a cap the stream errors with UPSTREAM_ERROR.
   */
  webStream(): ReadableStream<Uint8Array> {
    const iterator = this.cappedChunks()[Symbol.asyncIterator]();
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await iterator.next();
          if (done) controller.close();
          else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
        } catch (err) {
          controller.error(err);
        }
      },
      cancel: async () => {
        await iterator.return?.(undefined);
      },
    });
  }

  /** Drops the body (and with it the connection, if the body was not finished). */
  cancel(): void {
    this.drop();
  }

  /**
   * Done with the body before its end (the answer is complete): what is still on its way is read
   * and discarded so that undici keeps the keep-alive connection (an NLWeb stream ends right after
   * `complete`); an upstream that goes on sending is dropped after DRAIN_BYTES or DRAIN_MS.
   * Destroying at once cost a new connection and an AbortError with its stack trace per streamed
   * call (`npm run bench:profile nlweb-sse`).
   */
  private release(): void {
    const body = this.body;
    if (body.destroyed || body.readableEnded) return;
    let left = DRAIN_BYTES;
    const timer = setTimeout(() => this.drop(), DRAIN_MS);
    timer.unref();
    body.on('error', ignore);
    body.once('close', () => clearTimeout(timer));
    body.on('data', (chunk: Buffer) => {
      left -= chunk.length;
      if (left < 0) this.drop();
    });
  }

  /** Destroys the body; undici then reports an abort on it, which is expected here and ignored. */
  private drop(): void {
    if (this.body.destroyed) return;
    this.body.on('error', ignore);
    this.body.destroy();
  }

  private async *cappedChunks(): AsyncGenerator<Buffer> {
    const sse = this.isEventStream;
    const limit = sse ? this.bc.maxEventBytes : this.bc.maxBodyBytes;
    let pending = 0;
    try {
      for await (const chunk of this.counted()) {
        if (sse) {
          const boundary = lastBlankLine(chunk);
          pending = boundary < 0 ? pending + chunk.length : chunk.length - boundary;
        } else pending += chunk.length;
        if (pending > limit) throw tooLargeError(this.bc.agent, sse ? 'event' : 'reply', limit);
        yield chunk;
      }
    } catch (err) {
      this.fail(bodyError(err, this.bc.agent, this.bc.signal));
    } finally {
      this.release();
    }
  }

  /** The body's chunks, counted; leaving early does not destroy the body (see `release`). */
  private async *counted(): AsyncGenerator<Buffer> {
    for await (const chunk of this.body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      this.count(chunk);
      yield chunk;
    }
  }

  private count(chunk: Buffer): void {
    this.bytes += chunk.length;
    const exchange = this.bc.exchange;
    if (exchange?.follow && upstreamChannels.chunk.hasSubscribers) upstreamChannels.chunk.publish({ exchange, chunk: chunk.toString('utf8') });
  }

  /** `fail` for a promise: rejects with the error instead of throwing it. */
  private rejectWith(reject: (err: unknown) => void, err: GatewayError): void {
    try {
      this.fail(err);
    } catch (thrown) {
      reject(thrown);
    }
  }

  /** Destroys the body (dropping the connection), reports the end with the error's code, throws it. */
  private fail(err: GatewayError): never {
    this.finish(err.code);
    this.drop();
    throw err;
  }

  /** Publishes `end` once per exchange (a body that closed without error, or the first failure). */
  private finish(error: string | undefined): void {
    const exchange = this.bc.exchange;
    if (this.ended || !exchange) return;
    this.ended = true;
    const aborted = error === undefined && !this.body.readableEnded ? (this.bc.signal?.aborted ? 'CANCELLED' : undefined) : error;
    upstreamChannels.end.publish({ exchange, status: this.status, bytes: this.bytes, durationMs: performance.now() - exchange.startedAt, ...(aborted ? { error: aborted } : {}) });
  }
}

const ignore = (): void => undefined;

/** What `release` reads past the end of an answer before it drops the connection instead. */
const DRAIN_BYTES = 64 * 1024;
const DRAIN_MS = 1000;

/** Index just past the last blank line (`\n\n` or `\r\n\r\n`) in a chunk, or -1. */
function lastBlankLine(chunk: Buffer): number {
  const lf = chunk.lastIndexOf('\n\n');
  const crlf = chunk.lastIndexOf('\r\n\r\n');
  if (lf < 0 && crlf < 0) return -1;
  return Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 4);
}
