import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectEvents, collectRun } from './collect.ts';
import { agentEventArb } from '../../test/support/agent-events.ts';
import type { AgentEvent } from './events.ts';
import { normalizeEvents, runToEnd } from './run.ts';

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}


describe('normalizeEvents (NLWeb 6.1 framing)', () => {
  it('always yields exactly one start first and one complete last, whatever the agent does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(agentEventArb, { maxLength: 12 }), fc.option(fc.nat(12)), async (events, throwAt) => {
        async function* source(): AsyncGenerator<AgentEvent> {
          for (let i = 0; i < events.length; i++) {
            if (throwAt === i) throw new Error('boom');
            yield events[i]!;
          }
        }
        const out = await drain(normalizeEvents(source, new AbortController().signal));
        expect(out[0]!.type).toBe('start');
        expect(out.at(-1)!.type).toBe('complete');
        expect(out.filter((e) => e.type === 'start')).toHaveLength(1);
        expect(out.filter((e) => e.type === 'complete')).toHaveLength(1);
        const collected = await collectEvents((async function* () { yield* out; })());
        expect(['answer', 'elicitation', 'promise', 'failure']).toContain(collected.response._meta.response_type);
      }),
      { numRuns: 200 },
    );
  });

  it('ends with a CANCELLED error when aborted mid-stream', async () => {
    const ctl = new AbortController();
    async function* source(): AsyncGenerator<AgentEvent> {
      yield { type: 'result', item: { name: 'a' } };
      ctl.abort();
      yield { type: 'result', item: { name: 'b' } };
    }
    const out = await drain(normalizeEvents(source, ctl.signal));
    expect(out.map((e) => e.type)).toEqual(['start', 'result', 'error', 'complete']);
    expect(out[2]).toMatchObject({ code: 'CANCELLED' });
  });
});

describe('collectEvents', () => {
  it('keeps the upstream session_context and pass-through meta, and fails on a fatal error', async () => {
    const ok = await collectEvents(
      (async function* (): AsyncGenerator<AgentEvent> {
        yield { type: 'start', meta: { decontextualized_query: 'dq', version: '9' } };
        yield { type: 'result', item: { name: 'a' } };
        yield { type: 'complete', meta: { session_context: { s: 1 } } };
      })(),
    );
    expect(ok.upstreamSession).toEqual({ s: 1 });
    expect(ok.response._meta).toMatchObject({ decontextualized_query: 'dq', version: '0.55' });
    const bad = await collectEvents(
      (async function* (): AsyncGenerator<AgentEvent> {
        yield { type: 'error', code: 'TIMEOUT', message: 'slow' };
      })(),
    );
    expect(bad.response).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'TIMEOUT' } });
  });
});

// Issue 25: gateway.ask collects an answer in one loop (runToEnd, collectRun) rather than through the
// normalizeEvents generator; both must frame and fold every stream alike, failures and aborts included.
describe('runToEnd and collectRun (the collected path)', () => {
  it('see the same events, and fold to the same answer, as normalizeEvents then collectEvents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(agentEventArb, { maxLength: 12 }), fc.option(fc.nat(12)), fc.option(fc.nat(12)), async (events, throwAt, abortAt) => {
        const run = () => {
          const abort = new AbortController();
          async function* source(): AsyncGenerator<AgentEvent> {
            for (let i = 0; i < events.length; i++) {
              if (abortAt === i) abort.abort();
              if (throwAt === i) throw new Error('boom');
              yield events[i]!;
            }
          }
          return { source, signal: abort.signal };
        };
        const a = run();
        const streamed = await drain(normalizeEvents(a.source, a.signal));
        const b = run();
        const sunk: AgentEvent[] = [];
        await runToEnd(b.source, b.signal, undefined, (e) => sunk.push(e));
        expect(sunk).toEqual(streamed);
        const c = run();
        const d = run();
        expect(await collectRun(c.source, c.signal, undefined)).toEqual(await collectEvents(normalizeEvents(d.source, d.signal)));
      }),
    );
  });
});

