import { collectDefaultMetrics, Gauge, register as processRegistry, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './instruments.ts';

/**
 * The gateway's Prometheus metrics (issue 13 "Metrics"; docs/operations.md lists every series).
 * Names follow Prometheus conventions: `nlgate_` prefix, base units (`_seconds`), `_total` counters,
 * and only bounded labels (protocols, route templates, configured agent names, fixed outcome and
 * state names, error codes) — never a query, a token, a conversation id or a raw path.
 *
 * Counters and histograms are instruments.ts's pre-resolved series (a request records half a dozen);
 * the open-streams gauge is prom-client's own. All render through one prom-client Registry.
 *
 * Each app gets its own registry (tests run several apps in one process); Node's process metrics
 * are collected once per process into prom-client's default registry and served with them.
 */
export interface GatewayMetrics {
  readonly registry: Registry;
  requests: FastCounter<'protocol' | 'route' | 'agent' | 'outcome' | 'status'>;
  requestDuration: FastHistogram<'protocol' | 'route' | 'agent' | 'outcome'>;
  openStreams: Gauge<'protocol'>;
  upstreamRequests: FastCounter<'agent' | 'kind' | 'outcome'>;
  upstreamDuration: FastHistogram<'agent' | 'kind'>;
  upstreamErrors: FastCounter<'agent' | 'kind' | 'error'>;
  promises: FastCounter<'agent' | 'state'>;
  conversations: FastCounter<'agent'>;
  sessions: FastCounter<'protocol'>;
  rejections: FastCounter<'limit' | 'agent'>;
  storeDuration: FastHistogram<'store' | 'command'>;
  storeErrors: FastCounter<'store' | 'command'>;
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
    requests: new FastCounter(
      'nlgate_requests_total',
      'Inbound requests answered, by inbound protocol, route template, agent, outcome and HTTP status.',
      ['protocol', 'route', 'agent', 'outcome', 'status'],
      registers,
    ),
    requestDuration: new FastHistogram(
      'nlgate_request_duration_seconds',
      'Inbound request duration until the last byte of the response (streams included).',
      ['protocol', 'route', 'agent', 'outcome'],
      REQUEST_BUCKETS,
      registers,
    ),
    openStreams: new Gauge({ name: 'nlgate_open_streams', help: 'Streamed responses (SSE) in flight now.', labelNames: ['protocol'], registers }),
    upstreamRequests: new FastCounter(
      'nlgate_upstream_requests_total',
      'HTTP calls to upstream agents, by agent, adapter kind and outcome (status class or error code).',
      ['agent', 'kind', 'outcome'],
      registers,
    ),
    upstreamDuration: new FastHistogram(
      'nlgate_upstream_request_duration_seconds',
      'Upstream call duration, from the request to the end of its body.',
      ['agent', 'kind'],
      REQUEST_BUCKETS,
      registers,
    ),
    upstreamErrors: new FastCounter('nlgate_upstream_errors_total', 'Upstream calls that failed (no answer, timeout, cancelled, HTTP error), by error code.', ['agent', 'kind', 'error'], registers),
    promises: new FastCounter('nlgate_promises_total', 'Promise state changes on this replica: created, done, failed, cancelled, lost, rerun, released.', ['agent', 'state'], registers),
    conversations: new FastCounter('nlgate_conversations_created_total', 'Conversations started.', ['agent'], registers),
    sessions: new FastCounter('nlgate_sessions_created_total', 'Protocol sessions created (MCP).', ['protocol'], registers),
    rejections: new FastCounter('nlgate_rejections_total', 'Requests refused by a limit: rate limits and caps of the config.', ['limit', 'agent'], registers),
    storeDuration: new FastHistogram(
      'nlgate_store_command_duration_seconds',
      'Store operations (one or a few Redis commands or scripts), by store kind and operation.',
      ['store', 'command'],
      STORE_BUCKETS,
      registers,
    ),
    storeErrors: new FastCounter('nlgate_store_errors_total', 'Store operations that failed.', ['store', 'command'], registers),
  };
}

/** The text exposition of one app's metrics and the process metrics (Prometheus text format 0.0.4). */
export async function scrape(metrics: GatewayMetrics): Promise<string> {
  const [own, process] = await Promise.all([metrics.registry.metrics(), processRegistry.metrics()]);
  return `${own}\n${process}`;
}

export const METRICS_CONTENT_TYPE = processRegistry.contentType;
