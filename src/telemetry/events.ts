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
  const upstream = upstreamSeries(metrics, agents);
  const onEnd = (m: unknown) => {
    const e = m as UpstreamEndEvent;
    const series = upstream(e.exchange);
    const status = e.status;
    series.duration.observe(e.durationMs / 1000);
    series.outcome(status, e.error).inc();
    if (e.error) metrics.upstreamErrors.inc({ ...series.labels, error: errorLabel(e.error) });
    else if (status !== undefined && status >= 400) metrics.upstreamErrors.inc({ ...series.labels, error: `HTTP_${Math.floor(status / 100)}XX` });
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

/** One agent's upstream series, found once: every exchange records a duration and an outcome. */
interface UpstreamSeries {
  labels: { agent: string; kind: string };
  duration: { observe(seconds: number): void };
  outcome(status: number | undefined, error: string | undefined): { inc(): void };
}

/**
 * The upstream series by agent and kind, each resolved on its first exchange, and its outcome
 * counters by status class: an exchange then costs two map reads, where labelling each call made a
 * label object and a joined key twice over (issue 25). Bounded: agent labels are the configured
 * names (agentLabel), kinds the adapters', and an outcome is a status class or an error code.
 */
function upstreamSeries(metrics: GatewayMetrics, agents: AgentKinds): (exchange: UpstreamExchange) => UpstreamSeries {
  const byAgent = new Map<string, Map<string, UpstreamSeries>>();
  const create = (agent: string, kind: string): UpstreamSeries => {
    const labels = { agent, kind };
    const byClass: Array<{ inc(): void } | undefined> = [];
    const byName = new Map<string, { inc(): void }>();
    const counter = (outcome: string) => metrics.upstreamRequests.labels({ ...labels, outcome });
    return {
      labels,
      duration: metrics.upstreamDuration.labels(labels),
      outcome: (status, error) => {
        if (!error && status !== undefined && status >= 100 && status < 1000) {
          const cls = Math.floor(status / 100);
          return (byClass[cls] ??= counter(upstreamOutcome(status, undefined)));
        }
        const outcome = upstreamOutcome(status, error);
        let series = byName.get(outcome);
        if (!series) byName.set(outcome, (series = counter(outcome)));
        return series;
      },
    };
  };
  return (exchange) => {
    const agent = agentLabel(agents.names, exchange.agent);
    const kind = exchange.kind ?? agents.kindOf(exchange.agent);
    let kinds = byAgent.get(agent);
    if (!kinds) byAgent.set(agent, (kinds = new Map()));
    let series = kinds.get(kind);
    if (!series) kinds.set(kind, (series = create(agent, kind)));
    return series;
  };
}
