import type { CanonicalResponse, PromiseInfo, ResultItem } from '../protocol/nlweb/index.ts';
import type { AgentEvent } from './events.ts';
import { answerResponse, elicitationResponse, failureResponse } from './responses.ts';
import type { Logger } from '../base/logger.ts';
import { passThroughMeta, runToEnd } from './run.ts';

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
  const collector = new Collector(observe);
  for await (const event of events) collector.add(event);
  return collector.result();
}

/**
 * Runs an agent's stream and folds it as `collectEvents(normalizeEvents(...))` does, in one loop
 * (run.ts `runToEnd`): what `gateway.ask` does for every answer it collects (issue 25).
 */
export async function collectRun(source: () => AsyncIterable<AgentEvent>, signal: AbortSignal, log: Pick<Logger, 'error'> | undefined, observe?: EventObserver): Promise<Collected> {
  const collector = new Collector(observe);
  await runToEnd(source, signal, log, (event) => collector.add(event));
  return collector.result();
}

/** The fold itself, one event at a time. */
class Collector {
  private readonly results: ResultItem[] = [];
  private meta: Record<string, unknown> = {};
  private upstreamSession: Record<string, unknown> | undefined;
  private terminal: Collected | undefined;

  constructor(private readonly observe: EventObserver | undefined) {}

  add(event: AgentEvent): void {
    this.observe?.(event);
    switch (event.type) {
      case 'start':
      case 'complete': {
        // A new object only when the event carries meta to pass on (most carry none).
        if (event.meta) {
          const extra = passThroughMeta(event.meta);
          for (const _ in extra) {
            this.meta = { ...this.meta, ...extra };
            break;
          }
        }
        const sc = event.meta?.session_context;
        if (sc && typeof sc === 'object' && !Array.isArray(sc)) this.upstreamSession = sc as Record<string, unknown>;
        break;
      }
      case 'result':
        this.results.push(event.item);
        break;
      case 'elicitation':
        this.terminal ??= { response: elicitationResponse(event.elicitation, this.meta) };
        break;
      case 'promise':
        this.terminal ??= {
          response: { _meta: { response_type: 'promise', version: '0.55' }, promise: event.promise },
          upstreamPromise: event.promise,
        };
        break;
      case 'error':
        if (!event.recoverable) this.terminal ??= { response: failureResponse(event.code, event.message, this.meta) };
        break;
      case 'progress':
        break;
    }
  }

  result(): Collected {
    const base = this.terminal ?? { response: answerResponse(this.results, this.meta) };
    return this.upstreamSession ? { ...base, upstreamSession: this.upstreamSession } : base;
  }
}
