import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentEventArb } from '../../test/support/agent-events.ts';
import type { AgentEvent } from './events.ts';
import { isSyncSource, eventsFromReply, replyOf } from './reply-events.ts';
import { normalizeEvents, runToEnd } from './run.ts';


async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** A reply as an adapter builds it: its upstream may fail or be cancelled first; then all at once, or a stream. */
const replyArb = fc.record({
  events: fc.array(agentEventArb, { maxLength: 10 }),
  whole: fc.boolean(),
  failsFirst: fc.boolean(),
  abortsFirst: fc.boolean(),
  throwAt: fc.option(fc.nat(10)),
});

type ReplyCase = typeof replyArb extends fc.Arbitrary<infer T> ? T : never;

function replyOfCase(c: ReplyCase) {
  const abort = new AbortController();
  async function* stream(): AsyncGenerator<AgentEvent> {
    for (let i = 0; i < c.events.length; i++) {
      if (c.throwAt === i) throw new Error('the stream broke');
      yield c.events[i]!;
    }
  }
  const events = eventsFromReply(async () => {
    if (c.abortsFirst) abort.abort();
    if (c.failsFirst) throw new Error('the upstream failed');
    return c.whole ? c.events.slice() : stream();
  });
  return { events, signal: abort.signal };
}

describe('eventsFromReply (an adapter reply the core may take whole)', () => {
  it('runToEnd frames it exactly as normalizeEvents frames the same reply iterated event by event', async () => {
    await fc.assert(
      fc.asyncProperty(replyArb, async (c) => {
        const a = replyOfCase(c);
        const streamed = await drain(normalizeEvents(() => a.events, a.signal));
        const b = replyOfCase(c);
        const taken: AgentEvent[] = [];
        await runToEnd(() => b.events, b.signal, undefined, (e) => taken.push(e));
        expect(taken).toEqual(streamed);
      }),
    );
  });

  it('iterates as the reply events in order, for any caller that does not know it', async () => {
    const events: AgentEvent[] = [{ type: 'start' }, { type: 'result', item: { name: 'a' } }, { type: 'complete' }];
    expect(await drain(eventsFromReply(async () => events))).toEqual(events);
  });

  it('starts the reply once, and only when its events are first asked for', async () => {
    let calls = 0;
    const events = eventsFromReply(async () => {
      calls++;
      return [];
    });
    expect(calls).toBe(0);
    const reply = await replyOf(events)!;
    expect(isSyncSource(reply)).toBe(true);
    await drain(events);
    expect(calls).toBe(1);
  });

  it('is told apart from any other event stream', () => {
    async function* other(): AsyncGenerator<AgentEvent> {}
    expect(replyOf(other())).toBeUndefined();
    expect(isSyncSource(other())).toBe(false);
  });

  it('takes a JSON reply whole: no promise per event (regression: 140 promises per NLWeb pass-through, a third from the adapter generator)', async () => {
    const { promiseHooks } = await import('node:v8');
    const events: AgentEvent[] = [{ type: 'start' }, ...Array.from({ length: 20 }, (_, i): AgentEvent => ({ type: 'result', item: { name: `r${i}` } })), { type: 'complete' }];
    const count = async (source: () => AsyncIterable<AgentEvent>) => {
      let made = 0;
      const stop = promiseHooks.onInit(() => void made++);
      try {
        await runToEnd(source, new AbortController().signal, undefined, () => undefined);
      } finally {
        stop();
      }
      return made;
    };
    const whole = await count(() => eventsFromReply(async () => events));
    const generated = await count(async function* () {
      yield* await Promise.resolve(events);
    });
    // Taken whole, the count does not grow with the events; through a generator it grows by several an event.
    expect(whole).toBeLessThan(10);
    expect(generated).toBeGreaterThan(whole + 2 * events.length);
  });
});
