import type { Redactor } from './redact.ts';

/** One upstream exchange as the console shows it: redacted, size-bounded text. */
export interface CapturedExchange {
  id: number;
  agent: string;
  kind?: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  /** The response body as read (SSE events included), redacted when the exchange ends. */
  responseBody: string;
  /** True when the body was cut at the per-exchange byte bound. */
  truncated: boolean;
  error?: string;
  durationMs?: number;
  done: boolean;
}

interface CaptureEntry {
  owner: string;
  exchanges: CapturedExchange[];
  bytes: number;
}

export interface CaptureLimits {
  /** Requests kept per replica; the oldest marked request goes first. */
  maxRequests: number;
  /** Bytes kept per replica, across every request. */
  maxBytes: number;
  /** Bytes kept per exchange body (request or response); longer ones are cut. */
  maxExchangeBytes: number;
  /** Exchanges kept per request (a long promise's check-ins). */
  maxExchangesPerRequest: number;
}

export const DEFAULT_CAPTURE_LIMITS: CaptureLimits = Object.freeze({
  maxRequests: 200,
  maxBytes: 8 * 1_048_576,
  maxExchangeBytes: 256 * 1024,
  maxExchangesPerRequest: 50,
});

/**
 * The console's wire capture (issue 14 "Both wires"): a bounded in-memory ring of the upstream
 * exchanges made for requests the console marked, keyed by request id and owned by the principal that
 * made the request. Nothing is kept for unmarked requests.
 */
export class CaptureRing {
  private readonly entries = new Map<string, CaptureEntry>();
  private readonly live = new Map<number, { entry: CaptureEntry; ex: CapturedExchange }>();
  private totalBytes = 0;

  constructor(
    private readonly redactor: Redactor,
    readonly limits: CaptureLimits = DEFAULT_CAPTURE_LIMITS,
  ) {}

  /** Marks a request for capture, owned by `owner` (a Principal id). */
  mark(requestId: string, owner: string): void {
    if (this.entries.has(requestId)) return;
    this.entries.set(requestId, { owner, exchanges: [], bytes: 0 });
    this.evict();
  }

  isMarked(requestId: string | undefined): boolean {
    return requestId !== undefined && this.entries.has(requestId);
  }

  /** The exchanges of a request, only for its owner; null for anyone else or an unknown id. */
  get(requestId: string, owner: string): CapturedExchange[] | null {
    const entry = this.entries.get(requestId);
    if (!entry || entry.owner !== owner) return null;
    // A body still being read is raw until its end: redact the copy handed out.
    return entry.exchanges.map((ex) => ({ ...ex, ...(ex.done ? {} : { responseBody: this.redactor.body(ex.responseBody) }) }));
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** An upstream request began (upstreamChannels.request). */
  onRequest(ex: { id: number; requestId?: string; agent: string; kind?: string; method: string; url: string; headers: Record<string, string>; body?: string }): void {
    const entry = ex.requestId ? this.entries.get(ex.requestId) : undefined;
    if (!entry || entry.exchanges.length >= this.limits.maxExchangesPerRequest) return;
    const body = ex.body === undefined ? undefined : this.cut(this.redactor.body(ex.body)).text;
    const captured: CapturedExchange = {
      id: ex.id,
      agent: ex.agent,
      ...(ex.kind ? { kind: ex.kind } : {}),
      method: ex.method,
      url: this.redactor.url(ex.url),
      requestHeaders: this.redactor.headers({ ...ex.headers }),
      ...(body !== undefined ? { requestBody: body } : {}),
      responseBody: '',
      truncated: false,
      done: false,
    };
    entry.exchanges.push(captured);
    this.charge(entry, (body?.length ?? 0) + captured.url.length + 200);
    this.live.set(ex.id, { entry, ex: captured });
  }

  /** Response headers arrived (upstreamChannels.response). */
  onResponse(id: number, status: number, headers: Record<string, string>): void {
    const l = this.live.get(id);
    if (!l) return;
    l.ex.status = status;
    l.ex.responseHeaders = this.redactor.headers({ ...headers });
  }

  /** A piece of the response body (upstreamChannels.chunk). */
  onChunk(id: number, chunk: string): void {
    const l = this.live.get(id);
    if (!l || l.ex.truncated) return;
    const room = this.limits.maxExchangeBytes - l.ex.responseBody.length;
    const piece = chunk.length > room ? chunk.slice(0, Math.max(0, room)) : chunk;
    if (piece.length < chunk.length) l.ex.truncated = true;
    l.ex.responseBody += piece;
    this.charge(l.entry, piece.length);
  }

  /** The exchange ended (upstreamChannels.end): the body is redacted as a whole now. */
  onEnd(id: number, error: string | undefined, durationMs: number): void {
    const l = this.live.get(id);
    if (!l) return;
    this.live.delete(id);
    const before = l.ex.responseBody.length;
    l.ex.responseBody = this.redactor.body(l.ex.responseBody);
    this.charge(l.entry, l.ex.responseBody.length - before);
    if (error) l.ex.error = error;
    l.ex.durationMs = Math.round(durationMs);
    l.ex.done = true;
  }

  private cut(text: string): { text: string; cut: boolean } {
    return text.length > this.limits.maxExchangeBytes ? { text: text.slice(0, this.limits.maxExchangeBytes), cut: true } : { text, cut: false };
  }

  private charge(entry: CaptureEntry, bytes: number): void {
    entry.bytes += bytes;
    this.totalBytes += bytes;
    this.evict();
  }

  /** Drops the oldest requests until both bounds hold (Map iteration order is insertion order). */
  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxRequests && this.totalBytes <= this.limits.maxBytes) return;
      this.entries.delete(key);
      this.totalBytes -= entry.bytes;
      for (const [id, l] of this.live) if (l.entry === entry) this.live.delete(id);
    }
  }
}
