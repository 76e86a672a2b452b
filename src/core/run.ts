import type { AgentEvent } from './events.ts';
import type { Logger } from '../base/logger.ts';
import { GatewayError, toGatewayError } from '../base/errors.ts';
import { isSyncSource, replyOf } from './reply-events.ts';

/** Upstream `_meta` keys the gateway owns and therefore never copies from an upstream. */
const OWNED_META_KEYS = new Set(['response_type', 'version', 'session_context', 'streaming', 'response_format']);

/** Upstream `_meta` fields worth passing on to clients (e.g. `decontextualized_query`). */
export function passThroughMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!meta) return out;
  // A loop, not entries/filter/fromEntries: this runs for every start and complete event (issue 25).
  for (const k in meta) if (Object.hasOwn(meta, k) && !OWNED_META_KEYS.has(k)) out[k] = meta[k];
  return out;
}

/**
 * The rules of a normalised stream (NLWeb 6.1), one agent event at a time: exactly one `start`
 * first and one `complete` last; nothing after a terminal event (`promise`, `elicitation`,
 * non-recoverable `error`); a failure of the source becomes a final non-recoverable `error`. Each
 * step hands what goes out to `emit`. One state machine for both ways of running it:
 * `normalizeEvents` (a stream) and `runToEnd` (collected, with no generator in between).
 */
export class EventNormalizer {
  /** True once nothing more may pass: a terminal event went out, or the source said `complete`. */
  done = false;
  private started = false;
  private completeMeta: Record<string, unknown> | undefined;

  constructor(private readonly emit: (event: AgentEvent) => void) {}

  /** One event from the source. */
  accept(event: AgentEvent): void {
    if (event.type === 'start') {
      if (!this.started) this.start(event.meta);
      return;
    }
    if (!this.started) this.start();
    if (event.type === 'complete') {
      this.completeMeta = event.meta;
      this.done = true;
      return;
    }
    this.emit(event);
    if (event.type === 'promise' || event.type === 'elicitation' || (event.type === 'error' && !event.recoverable)) this.done = true;
  }

  /**
   * The source threw (network, timeout, abort, adapter bug): a final `error`. An internal error is
   * logged on `log` (the call's logger, carrying the request id): the client sees only "An internal
   * error occurred", the operator must see what it was.
   */
  fail(err: unknown, signal: AbortSignal, log?: Pick<Logger, 'error'>): void {
    const reason = signal.aborted && signal.reason instanceof GatewayError ? signal.reason : toGatewayError(err);
    if (reason.code === 'INTERNAL_ERROR') log?.error({ err: String(err), stack: (err as Error | undefined)?.stack }, 'agent call failed: internal error');
    if (!this.started) this.start();
    this.emit({ type: 'error', code: reason.code, message: reason.message, recoverable: false });
  }

  /** The end of the stream: `start` if none went out yet, then the one `complete`. */
  end(): void {
    if (!this.started) this.start();
    this.emit(this.completeMeta ? { type: 'complete', meta: this.completeMeta } : { type: 'complete' });
  }

  private start(meta?: Record<string, unknown>): void {
    this.started = true;
    this.emit(meta ? { type: 'start', meta } : { type: 'start' });
  }
}

/** The error an abort leaves the source with: the core's own reason, else CANCELLED. */
function aborted(signal: AbortSignal): unknown {
  return signal.reason ?? new GatewayError('CANCELLED', 'The call was cancelled');
}

/**
 * Normalises an agent's event stream (NLWeb 6.1, EventNormalizer), so a broken upstream never
 * breaks the client's stream or the process.
 */
export async function* normalizeEvents(source: () => AsyncIterable<AgentEvent>, signal: AbortSignal, log?: Pick<Logger, 'error'>): AsyncGenerator<AgentEvent> {
  const out: AgentEvent[] = [];
  const normalizer = new EventNormalizer((e) => out.push(e));
  try {
    for await (const event of source()) {
      if (signal.aborted) break;
      normalizer.accept(event);
      while (out.length > 0) yield out.shift()!;
      if (normalizer.done) break;
    }
    if (signal.aborted) throw aborted(signal);
  } catch (err) {
    normalizer.fail(err, signal, log);
  }
  normalizer.end();
  while (out.length > 0) yield out.shift()!;
}

/**
 * Runs an agent's event stream to its end, normalised as `normalizeEvents` does, handing each
 * event to `sink` as it comes: for a caller that collects the answer, this is one loop over the
 * source instead of a generator in between (a promise per event; issue 25). An adapter's
 * `eventsFromReply` whose reply was JSON is taken whole, with no promise per event at all.
 */
export async function runToEnd(source: () => AsyncIterable<AgentEvent>, signal: AbortSignal, log: Pick<Logger, 'error'> | undefined, sink: (event: AgentEvent) => void): Promise<void> {
  const normalizer = new EventNormalizer(sink);
  // False once nothing more is taken: the call was aborted, or the stream is over.
  const take = (event: AgentEvent): boolean => {
    if (signal.aborted) return false;
    normalizer.accept(event);
    return !normalizer.done;
  };
  try {
    const events = source();
    const reply = replyOf(events);
    const body = reply ? await reply : events;
    if (isSyncSource(body)) {
      for (const event of body) if (!take(event)) break;
    } else {
      for await (const event of body) if (!take(event)) break;
    }
    if (signal.aborted) throw aborted(signal);
  } catch (err) {
    normalizer.fail(err, signal, log);
  }
  normalizer.end();
}
