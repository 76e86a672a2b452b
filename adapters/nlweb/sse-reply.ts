import type { AgentEvent } from '../../src/core/events.ts';
import type { SseMessage } from '../../src/protocol/sse.ts';
import {
  contentEvents,
  isObject,
  replyMeta,
  responseType,
  toFailureEvent,
  toResultItem,
  type JsonObject,
} from './reply-fields.ts';

type ErrorEvent = Extract<AgentEvent, { type: 'error' }>;

/**
 * Maps an upstream SSE reply to canonical events, one frame at a time (no buffering beyond one
 * `error` event). Speaks both dialects:
 * - v0.55 (spec 6.1): named `start`, `result` ({index, item}), `error`, `complete` events;
 * - v0.54 (its 8.4, interop.md): unnamed `data:` frames — `{"_meta"}`, `{"results": [...]}`,
 *   `{"elicitation"}`, `{"error"}` — and then the stream just ends: EOF means complete.
 *
 * An upstream `error` is held until the next frame shows whether the stream goes on (6.1: then it
 * was recoverable) or ends (then it is final). Garbage data ends the mapping with an
 * INTERNAL_ERROR `error` and `complete`, after whatever was already delivered.
 * Invariants: `start` first, at most one `complete`, nothing after it.
 */
export class SseReplyMapper {
  private started = false;
  private finished = false;
  private sawAnything = false;
  private sawError = false;
  private meta: JsonObject | undefined;
  private pending: ErrorEvent | undefined;

  constructor(private readonly agent: string) {}

  /** True once `complete` has been emitted: the caller stops reading. */
  get done(): boolean {
    return this.finished;
  }

  /** Maps one SSE message (spec 6.1 event or v0.54 unnamed frame). */
  frame(message: SseMessage): AgentEvent[] {
    if (this.finished) return [];
    const name = message.event && message.event !== 'message' ? message.event : undefined;
    if (message.data.trim() === '') {
      // A data-less keepalive; a bare `complete` still ends the stream.
      return name === 'complete' ? this.emit([{ type: 'complete' }]) : [];
    }
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      return this.broken('INTERNAL_ERROR', `Agent "${this.agent}" sent stream data that is not JSON`);
    }
    if (!isObject(data)) return this.broken('INTERNAL_ERROR', `Agent "${this.agent}" sent stream data that is not a JSON object`);
    this.sawAnything = true;
    switch (name) {
      case undefined:
        return this.unnamed(data);
      case 'start':
        this.mergeMeta(data);
        return this.emit([{ type: 'start' }]);
      case 'result':
        return this.emit(this.resultEvents(data));
      case 'error':
        return this.emit([toFailureEvent(isObject(data.error) || typeof data.error === 'string' ? data.error : data, this.agent)]);
      case 'complete':
        this.mergeMeta(data);
        return this.emit([{ type: 'complete' }]);
      default:
        return []; // Unknown event names are extensions (2.2): ignore them.
    }
  }

  /** The stream reached EOF: complete (v0.54 has no terminal frame), unless nothing came at all. */
  end(): AgentEvent[] {
    if (this.finished) return [];
    if (!this.sawAnything) return this.broken('INTERNAL_ERROR', `Agent "${this.agent}" ended the stream without an answer`);
    const events: AgentEvent[] = [];
    if (responseType(this.meta) === 'failure' && !this.sawError && !this.pending) {
      events.push({ type: 'error', code: 'INTERNAL_ERROR', message: `Agent "${this.agent}" reported a failure`, recoverable: false });
    }
    events.push({ type: 'complete' });
    return this.emit(events);
  }

  /**
   * The stream broke off (connection reset, timeout, garbage): a final `error` with `code`, then
   * `complete`, after what was already delivered.
   */
  broken(code: string, message: string): AgentEvent[] {
    if (this.finished) return [];
    const out: AgentEvent[] = [];
    this.flushPending(out, true);
    return [...out, ...this.emit([{ type: 'error', code, message, recoverable: false }, { type: 'complete' }])];
  }

  /** v0.54 frames: `_meta` opens the answer; content fields map like a JSON reply's. */
  private unnamed(data: JsonObject): AgentEvent[] {
    const hadMeta = this.mergeMeta(data);
    const events: AgentEvent[] = hadMeta ? [{ type: 'start' }] : [];
    return this.emit([...events, ...contentEvents(data, this.agent)]);
  }

  /** A v0.55 `result` event: `{index, item}`; a bare item or a `results` list is tolerated. */
  private resultEvents(data: JsonObject): AgentEvent[] {
    if ('item' in data) {
      const item = toResultItem(data.item);
      return item ? [{ type: 'result', item }] : [];
    }
    if (Array.isArray(data.results) || Array.isArray(data.structuredData)) return contentEvents(data, this.agent);
    const item = toResultItem(data);
    return item ? [{ type: 'result', item }] : [];
  }

  /** Folds a frame's `_meta` into the running meta (later frames win: `complete` carries session_context). */
  private mergeMeta(data: JsonObject): boolean {
    const meta = replyMeta(data);
    if (!meta) return false;
    this.meta = { ...(this.meta ?? {}), ...meta };
    return true;
  }

  /** Applies the stream invariants to candidate events and returns what may go out now. */
  private emit(candidates: AgentEvent[]): AgentEvent[] {
    const out: AgentEvent[] = [];
    for (const event of candidates) {
      if (this.finished) break;
      if (event.type === 'start') {
        this.ensureStarted(out);
        continue;
      }
      this.ensureStarted(out);
      if (event.type === 'error') {
        this.flushPending(out, true);
        this.pending = event;
        this.sawError = true;
      } else if (event.type === 'complete') {
        this.flushPending(out, false);
        out.push(this.meta ? { type: 'complete', meta: { ...this.meta } } : { type: 'complete' });
        this.finished = true;
      } else {
        this.flushPending(out, true);
        out.push(event);
      }
    }
    return out;
  }

  private ensureStarted(out: AgentEvent[]): void {
    if (this.started) return;
    this.started = true;
    out.push(this.meta ? { type: 'start', meta: { ...this.meta } } : { type: 'start' });
  }

  private flushPending(out: AgentEvent[], recoverable: boolean): void {
    if (!this.pending) return;
    out.push({ ...this.pending, recoverable });
    this.pending = undefined;
  }
}
