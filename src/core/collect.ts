import type { CanonicalResponse, PromiseInfo, ResultItem } from '../protocol/nlweb/index.ts';
import type { AgentEvent } from './events.ts';
import { answerResponse, elicitationResponse, failureResponse } from './responses.ts';
import { passThroughMeta } from './run.ts';

/** What one agent call amounted to once its stream ended. */
export interface Collected {
  /** The response for the client; for an upstream promise, the upstream's promise (token not yet mapped). */
  response: CanonicalResponse;
  /** Set when the upstream answered with its own promise (4.1.2). */
  upstreamPromise?: PromiseInfo;
  /** The upstream's `session_context` from `start`/`complete`, to keep for the next call. */
  upstreamSession?: Record<string, unknown>;
}

/** Observer for events as they are collected (progress reports for a running promise). */
export type EventObserver = (event: AgentEvent) => void;

/**
 * Folds a normalised event stream into one response (NLWeb 4.1): results in `index` order,
 * or the elicitation, the upstream promise, or a failure for a non-recoverable error.
 */
export async function collectEvents(events: AsyncIterable<AgentEvent>, observe?: EventObserver): Promise<Collected> {
  const results: ResultItem[] = [];
  let meta: Record<string, unknown> = {};
  let upstreamSession: Record<string, unknown> | undefined;
  let terminal: Collected | undefined;

  for await (const event of events) {
    observe?.(event);
    switch (event.type) {
      case 'start':
      case 'complete': {
        // A new object only when the event carries meta to pass on (most carry none).
        if (event.meta) {
          const extra = passThroughMeta(event.meta);
          for (const _ in extra) {
            meta = { ...meta, ...extra };
            break;
          }
        }
        const sc = event.meta?.session_context;
        if (sc && typeof sc === 'object' && !Array.isArray(sc)) upstreamSession = sc as Record<string, unknown>;
        break;
      }
      case 'result':
        results.push(event.item);
        break;
      case 'elicitation':
        terminal ??= { response: elicitationResponse(event.elicitation, meta) };
        break;
      case 'promise':
        terminal ??= {
          response: { _meta: { response_type: 'promise', version: '0.55' }, promise: event.promise },
          upstreamPromise: event.promise,
        };
        break;
      case 'error':
        if (!event.recoverable) terminal ??= { response: failureResponse(event.code, event.message, meta) };
        break;
      case 'progress':
        break;
    }
  }
  const base = terminal ?? { response: answerResponse(results, meta) };
  return upstreamSession ? { ...base, upstreamSession } : base;
}
