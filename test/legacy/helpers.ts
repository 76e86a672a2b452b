import { nlwebLegacyAdapter, type NlwebLegacyAgent } from '../../adapters/nlweb-legacy/index.ts';
import type { CallContext } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/base/logger.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';

/** An `nlweb-legacy` agent built the way the gateway builds one: the kind's schema, then create(). */
export function legacyAgent(fields: Record<string, unknown>, name = 'old'): NlwebLegacyAgent {
  const config = nlwebLegacyAdapter.configSchema.parse(fields);
  return nlwebLegacyAdapter.create({ ...config, name, kind: 'nlweb-legacy' }, { log: silentLogger, baseDir: '.' }) as NlwebLegacyAgent;
}

/** A call context for a conversation with these previous queries. */
export function callContext(prev: string[] = [], extra: Partial<CallContext> = {}): CallContext {
  return {
    signal: AbortSignal.timeout(10_000),
    requestId: 'req-1',
    conversation: { id: 'conv_test', prev, attrs: {} },
    log: silentLogger,
    ...extra,
  };
}

/** Runs one ask to the end and returns every event. */
export async function askAll(agent: NlwebLegacyAgent, request: AskRequest, ctx: CallContext = callContext()): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const e of agent.ask(request, ctx)) events.push(e);
  return events;
}

/** The result items of an event list. */
export function resultsOf(events: AgentEvent[]): Array<Record<string, unknown>> {
  return events.flatMap((e) => (e.type === 'result' ? [e.item as Record<string, unknown>] : []));
}
