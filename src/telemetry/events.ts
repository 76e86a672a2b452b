import { coreChannels, type CreatedEvent, type PromiseEvent, type RejectionEvent } from '../core/core-events.ts';
import { upstreamChannels, type UpstreamEndEvent, type UpstreamExchange } from '../core/upstream-events.ts';
import { agentLabel, errorLabel, upstreamOutcome } from './labels.ts';
import type { GatewayMetrics } from './metrics.ts';

/** What the metrics need to know about the config: agent names and their adapter kinds. */
export interface AgentKinds {
  readonly names: ReadonlySet<string>;
  kindOf(agent: string): string;
}

/**
 * Counts what the core and the adapters publish on `node:diagnostics_channel` (core-events.ts,
 * upstream-events.ts) into the metrics (issue 13 item 1). Returns the unsubscribe.
 */
export function subscribeMetrics(metrics: GatewayMetrics, agents: AgentKinds): () => void {
  const labelsOf = (exchange: UpstreamExchange) => {
    const agent = agentLabel(agents.names, exchange.agent);
    return { agent, kind: exchange.kind ?? agents.kindOf(exchange.agent) };
  };
  const onEnd = (m: unknown) => {
    const e = m as UpstreamEndEvent;
    const labels = labelsOf(e.exchange);
    const status = e.status;
    metrics.upstreamRequests.inc({ ...labels, outcome: upstreamOutcome(status, e.error) });
    metrics.upstreamDuration.observe(labels, e.durationMs / 1000);
    if (e.error) metrics.upstreamErrors.inc({ ...labels, error: errorLabel(e.error) });
    else if (status !== undefined && status >= 400) metrics.upstreamErrors.inc({ ...labels, error: `HTTP_${Math.floor(status / 100)}XX` });
  };
  const onPromise = (m: unknown) => {
    const e = m as PromiseEvent;
    metrics.promises.inc({ agent: agentLabel(agents.names, e.agent), state: e.state });
  };
  const onCreated = (m: unknown) => {
    const e = m as CreatedEvent;
    if (e.kind === 'conversation') metrics.conversations.inc({ agent: agentLabel(agents.names, e.agent) });
    else metrics.sessions.inc({ protocol: /^[a-z0-9-]{1,20}$/.test(e.kind) ? e.kind : 'other' });
  };
  const onRejection = (m: unknown) => {
    const e = m as RejectionEvent;
    metrics.rejections.inc({ limit: /^[A-Za-z_]{1,40}$/.test(e.limit) ? e.limit : 'other', agent: agentLabel(agents.names, e.agent) });
  };
  const subscriptions = [
    [upstreamChannels.end, onEnd],
    [coreChannels.promise, onPromise],
    [coreChannels.created, onCreated],
    [coreChannels.rejection, onRejection],
  ] as const;
  for (const [channel, fn] of subscriptions) channel.subscribe(fn);
  return () => {
    for (const [channel, fn] of subscriptions) channel.unsubscribe(fn);
  };
}
