import fc from 'fast-check';
import type { AgentEvent } from '../../src/core/events.ts';

/** Any canonical agent event, terminal ones included: what an adapter may yield, in any order. */
export const agentEventArb: fc.Arbitrary<AgentEvent> = fc.oneof(
  fc.constant<AgentEvent>({ type: 'start' }),
  fc.record({ type: fc.constant('result' as const), item: fc.record({ name: fc.string() }) }),
  fc.record({ type: fc.constant('error' as const), code: fc.constantFrom('NO_RESULTS', 'X'), message: fc.string(), recoverable: fc.boolean() }),
  fc.record({ type: fc.constant('progress' as const), progress: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.constant<AgentEvent>({ type: 'elicitation', elicitation: { text: 'q' } }),
  fc.constant<AgentEvent>({ type: 'promise', promise: { token: 't' } }),
  fc.constant<AgentEvent>({ type: 'complete' }),
);
