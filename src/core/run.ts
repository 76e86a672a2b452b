import type { AgentEvent } from './events.ts';
import type { Logger } from '../base/logger.ts';
import { GatewayError, toGatewayError } from '../base/errors.ts';

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
 * Normalises an agent's event stream (NLWeb 6.1): exactly one `start` first and one `complete` last;
 * a thrown error (network, timeout, abort, adapter bug) becomes a final non-recoverable `error` event,
 * so a broken upstream never breaks the client's stream or the process. Nothing after a terminal
 * event (`promise`, `elicitation`, non-recoverable `error`) is passed on. An internal error is logged
 * on `log` (the call's logger, carrying the request id).
 */
export async function* normalizeEvents(source: () => AsyncIterable<AgentEvent>, signal: AbortSignal, log?: Pick<Logger, 'error'>): AsyncGenerator<AgentEvent> {
  let started = false;
  let completeMeta: Record<string, unknown> | undefined;
  const start = (meta?: Record<string, unknown>): AgentEvent => {
    started = true;
    return meta ? { type: 'start', meta } : { type: 'start' };
  };
  try {
    for await (const event of source()) {
      if (signal.aborted) break;
      if (event.type === 'start') {
        if (!started) yield start(event.meta);
        continue;
      }
      if (!started) yield start();
      if (event.type === 'complete') {
        completeMeta = event.meta;
        break;
      }
      yield event;
      if (event.type === 'promise' || event.type === 'elicitation' || (event.type === 'error' && !event.recoverable)) break;
    }
    if (signal.aborted) throw signal.reason ?? new GatewayError('CANCELLED', 'The call was cancelled');
  } catch (err) {
    const reason = signal.aborted && signal.reason instanceof GatewayError ? signal.reason : toGatewayError(err);
    // The client sees only "An internal error occurred": the operator must see what it was.
    if (reason.code === 'INTERNAL_ERROR') log?.error({ err: String(err), stack: (err as Error | undefined)?.stack }, 'agent call failed: internal error');
    if (!started) yield start();
    yield { type: 'error', code: reason.code, message: reason.message, recoverable: false };
  }
  if (!started) yield start();
  yield completeMeta ? { type: 'complete', meta: completeMeta } : { type: 'complete' };
}
