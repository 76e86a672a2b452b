import { coreChannels, type CreatedEvent, type PromiseEvent, type RejectionEvent } from '../core/core-events.ts';
import { upstreamChannels, type UpstreamEndEvent, type UpstreamExchange } from '../core/upstream-events.ts';
import { agentLabel, errorLabel, upstreamOutcome } from './labels.ts';
import { seriesOf, type GatewayMetrics } from './metrics.ts';

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
  const kindOf = (exchange: UpstreamExchange) => exchange.kind ?? agents.kindOf(exchange.agent);
  const upstreamRequests = seriesOf(metrics.upstreamRequests, ['agent', 'kind', 'outcome']);
  const upstreamDuration = seriesOf(metrics.upstreamDuration, ['agent', 'kind']);
  const upstreamErrors = seriesOf(metrics.upstreamErrors, ['agent', 'kind', 'error']);
  const onEnd = (m: unknown) => {
    const e = m as UpstreamEndEvent;
    const agent = agentLabel(agents.names, e.exchange.agent);
    const kind = kindOf(e.exchange);
    const status = e.status;
    upstreamRequests(agent, kind, upstreamOutcome(status, e.error)).inc();
    upstreamDuration(agent, kind).observe(e.durationMs / 1000);
    if (e.error) upstreamErrors(agent, kind, errorLabel(e.error)).inc();
    else if (status !== undefined && status >= 400) upstreamErrors(agent, kind, `HTTP_${Math.floor(status / 100)}XX`).inc();
  };
  const promises = seriesOf(metrics.promises, ['agent', 'state']);
  const conversations = seriesOf(metrics.conversations, ['agent']);
  const onPromise = (m: unknown) => {
    const e = m as PromiseEvent;
    promises(agentLabel(agents.names, e.agent), e.state).inc();
  };
  const onCreated = (m: unknown) => {
    const e = m as CreatedEvent;
    if (e.kind === 'conversation') conversations(agentLabel(agents.names, e.agent)).inc();
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
