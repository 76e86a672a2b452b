import type { Agent, CallContext } from './agent.ts';
import type { AgentEvent } from './events.ts';
import { normalizeEvents } from './run.ts';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * For a streaming client, an upstream promise is an implementation detail: the core checks in with
 * the upstream (NLWeb 4.2) until it answers, turning each intermediate promise into a `progress`
 * event. The result is one normalised stream: one `start`, one `complete`.
 */
export async function* followUpstreamPromises(agent: Agent, ctx: CallContext, first: AsyncIterable<AgentEvent>): AsyncGenerator<AgentEvent> {
  let current = first;
  let started = false;
  let pause = 250;
  for (;;) {
    let pending: Extract<AgentEvent, { type: 'promise' }> | undefined;
    let complete: AgentEvent | undefined;
    for await (const event of current) {
      if (event.type === 'start') {
        if (!started) yield event;
        started = true;
      } else if (event.type === 'complete') {
        complete = event;
      } else if (event.type === 'promise' && agent.await) {
        pending = event;
      } else {
        yield event;
      }
    }
    if (!pending || ctx.signal.aborted) {
      yield complete ?? { type: 'complete' };
      return;
    }
    const { progress, message, estimated_time: eta } = pending.promise;
    yield { type: 'progress', ...(progress !== undefined ? { progress } : {}), ...(message ? { message } : {}) };
    // Poll no faster than 4/s and no slower than every 5 s; an estimate shortens the wait.
    await sleep(eta !== undefined ? Math.min(Math.max(eta * 1000, 250), 5_000) : pause, ctx.signal);
    pause = Math.min(pause * 2, 5_000);
    const token = pending.promise.token;
    current = normalizeEvents(() => agent.await!(token, 'checkin', ctx), ctx.signal, ctx.log);
  }
}
