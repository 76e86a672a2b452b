import { expect } from 'vitest';
import { GatewayError } from '../../src/base/errors.ts';
import { silentLogger } from '../../src/base/logger.ts';
import type { CallContext } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';

/** A call context for driving an adapter directly: a timeout signal, a request id, no logging. */
export function callContext(extra: Partial<CallContext> = {}, timeoutMs = 5_000): CallContext {
  return { signal: AbortSignal.timeout(timeoutMs), requestId: 't', log: silentLogger, ...extra };
}

/** Every event an adapter's call yields, in order. */
export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** The GatewayError `p` rejects with (the test fails if it resolves or rejects with anything else). */
export async function failure(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}
