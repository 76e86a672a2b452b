import type { AgentEvent } from './events.ts';

/** An upstream reply's events: all at once (a JSON reply mapped whole) or as they arrive (SSE). */
export type ReplyEventSource = Iterable<AgentEvent> | AsyncIterable<AgentEvent>;

const REPLY = Symbol('nlgate.eventsFromReply');

interface ReplyEvents extends AsyncIterable<AgentEvent> {
  [REPLY]: () => Promise<ReplyEventSource>;
}

/**
 * An ask's (or check-in's) events from one upstream reply, for an adapter to return from `ask`
 * (docs/architecture.md). Iterated as any `AsyncIterable`, it is the reply's events in order;
 * `runToEnd` instead takes a JSON reply's events whole (`replyOf`). Why: an adapter's
 * `async *ask` that `yield*`s an array pays about four promises an event (the generator's own
 * step, the async-from-sync iterator, the consumer's await, the `return` at the end): a third of
 * the 140 promises an NLWeb pass-through made (issue 25, `npx tsx bench/promises.ts`).
 * `reply` runs once, when the events are first asked for, as a generator's body would.
 */
export function eventsFromReply(reply: () => Promise<ReplyEventSource>): AsyncIterable<AgentEvent> {
  let started: Promise<ReplyEventSource> | undefined;
  const take = () => (started ??= reply());
  const events: ReplyEvents = {
    [REPLY]: take,
    async *[Symbol.asyncIterator]() {
      yield* await take();
    },
  };
  return events;
}

/** The reply behind `eventsFromReply(…)`, started; undefined for any other event stream. */
export function replyOf(events: AsyncIterable<AgentEvent>): Promise<ReplyEventSource> | undefined {
  return (events as Partial<ReplyEvents>)[REPLY]?.();
}

/** Whether a reply's events are all there already (an array or another sync iterable). */
export function isSyncSource(source: ReplyEventSource): source is Iterable<AgentEvent> {
  return typeof (source as Partial<Iterable<AgentEvent>>)[Symbol.iterator] === 'function';
}
