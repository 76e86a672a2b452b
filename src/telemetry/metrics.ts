import { collectDefaultMetrics, Counter, Gauge, Histogram, register as processRegistry, Registry } from 'prom-client';

/**
 * The gateway's Prometheus metrics (issue 13 "Metrics"; docs/operations.md lists every series).
 * Names follow Prometheus conventions: `nlgate_` prefix, base units (`_seconds`), `_total` counters,
 * and only bounded labels (protocols, route templates, configured agent names, fixed outcome and
 * state names, error codes) — never a query, a token, a conversation id or a raw path.
 *
 * Each app gets its own registry (tests run several apps in one process); Node's process metrics
 * are collected once per process into prom-client's default registry and served with them.
 */
export interface GatewayMetrics {
  readonly registry: Registry;
  requests: Counter<'protocol' | 'route' | 'agent' | 'outcome' | 'status'>;
  requestDuration: Histogram<'protocol' | 'route' | 'agent' | 'outcome'>;
  openStreams: Gauge<'protocol'>;
  upstreamRequests: Counter<'agent' | 'kind' | 'outcome'>;
  upstreamDuration: Histogram<'agent' | 'kind'>;
  upstreamErrors: Counter<'agent' | 'kind' | 'error'>;
  promises: Counter<'agent' | 'state'>;
  conversations: Counter<'agent'>;
  sessions: Counter<'protocol'>;
  rejections: Counter<'limit' | 'agent'>;
  storeDuration: Histogram<'store' | 'command'>;
  storeErrors: Counter<'store' | 'command'>;
}

/** Request latencies: from a cached catalog answer (~1 ms) to a slow agent's stream (minutes). */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Store commands: sub-millisecond in memory, a few ms to Redis, seconds when Redis struggles. */
const STORE_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

let processMetricsStarted = false;

/** Creates the metric instruments of one app (issue 13 item 1), and starts Node's process metrics once. */
export function createMetrics(): GatewayMetrics {
  if (!processMetricsStarted) {
    processMetricsStarted = true;
    collectDefaultMetrics({ register: processRegistry });
  }
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: 'nlgate_requests_total',
      help: 'Inbound requests answered, by inbound protocol, route template, agent, outcome and HTTP status.',
      labelNames: ['protocol', 'route', 'agent', 'outcome', 'status'],
      registers,
    }),
    requestDuration: new Histogram({
      name: 'nlgate_request_duration_seconds',
      help: 'Inbound request duration until the last byte of the response (streams included).',
      labelNames: ['protocol', 'route', 'agent', 'outcome'],
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    openStreams: new Gauge({ name: 'nlgate_open_streams', help: 'Streamed responses (SSE) in flight now.', labelNames: ['protocol'], registers }),
    upstreamRequests: new Counter({
      name: 'nlgate_upstream_requests_total',
      help: 'HTTP calls to upstream agents, by agent, adapter kind and outcome (status class or error code).',
      labelNames: ['agent', 'kind', 'outcome'],
      registers,
    }),
    upstreamDuration: new Histogram({
      name: 'nlgate_upstream_request_duration_seconds',
      help: 'Upstream call duration, from the request to the end of its body.',
      labelNames: ['agent', 'kind'],
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    upstreamErrors: new Counter({
      name: 'nlgate_upstream_errors_total',
      help: 'Upstream calls that failed (no answer, timeout, cancelled, HTTP error), by error code.',
      labelNames: ['agent', 'kind', 'error'],
      registers,
    }),
    promises: new Counter({
      name: 'nlgate_promises_total',
      help: 'Promise state changes on this replica: created, done, failed, cancelled, lost, rerun, released.',
      labelNames: ['agent', 'state'],
      registers,
    }),
    conversations: new Counter({ name: 'nlgate_conversations_created_total', help: 'Conversations started.', labelNames: ['agent'], registers }),
    sessions: new Counter({ name: 'nlgate_sessions_created_total', help: 'Protocol sessions created (MCP).', labelNames: ['protocol'], registers }),
    rejections: new Counter({
      name: 'nlgate_rejections_total',
      help: 'Requests refused by a limit: rate limits and caps of the config.',
      labelNames: ['limit', 'agent'],
      registers,
    }),
    storeDuration: new Histogram({
      name: 'nlgate_store_command_duration_seconds',
      help: 'Store operations (one or a few Redis commands or scripts), by store kind and operation.',
      labelNames: ['store', 'command'],
      buckets: STORE_BUCKETS,
      registers,
    }),
    storeErrors: new Counter({ name: 'nlgate_store_errors_total', help: 'Store operations that failed.', labelNames: ['store', 'command'], registers }),
  };
}

/** The text exposition of one app's metrics and the process metrics (Prometheus text format 0.0.4). */
export async function scrape(metrics: GatewayMetrics): Promise<string> {
  const [own, process] = await Promise.all([metrics.registry.metrics(), processRegistry.metrics()]);
  return `${own}\n${process}`;
}

export const METRICS_CONTENT_TYPE = processRegistry.contentType;
