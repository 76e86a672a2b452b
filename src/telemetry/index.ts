import type { Context, MiddlewareHandler } from 'hono';
import type { Gateway } from '../core/gateway-types.ts';
import type { Store } from '../store/store.ts';
import { subscribeMetrics } from './events.ts';
import { instrumentGateway } from './gateway.ts';
import { httpTelemetry } from './http.ts';
import { createMetrics, METRICS_CONTENT_TYPE, scrape, type GatewayMetrics } from './metrics.ts';
import { RequestStates } from './request-state.ts';
import { instrumentStore } from './store.ts';

export { startTracing, tracingActive, tracingRequested } from './tracing.ts';

/** One app's telemetry: metrics, the HTTP middleware, and the observed core and store. */
export interface Telemetry {
  readonly metrics: GatewayMetrics;
  /** The inbound-request middleware (metrics, server spans); mount after the request id is set. */
  readonly middleware: MiddlewareHandler;
  instrumentGateway(gateway: Gateway): Gateway;
  instrumentStore(store: Store): Store;
  /** The Prometheus text exposition (`GET /metrics`). */
  metricsResponse(c: Context): Promise<Response>;
  close(): void;
}

/** Agent names and kinds from the config: the bounded values of the `agent` and `kind` labels. */
export interface TelemetryAgents {
  agents: ReadonlyArray<{ name: string; kind: string }>;
}

/** Builds one app's telemetry (issue 13 items 1-2; docs/operations.md). */
export function createTelemetry({ agents }: TelemetryAgents): Telemetry {
  const metrics = createMetrics();
  const states = new RequestStates();
  const names = new Set(agents.map((a) => a.name));
  const kinds = new Map(agents.map((a) => [a.name, a.kind]));
  const unsubscribe = subscribeMetrics(metrics, { names, kindOf: (agent) => kinds.get(agent) ?? 'unknown' });
  return {
    metrics,
    middleware: httpTelemetry({ metrics, states, agents: names }),
    instrumentGateway: (gateway) => instrumentGateway(gateway, states),
    instrumentStore: (store) => instrumentStore(store, metrics),
    metricsResponse: async (c) => c.body(await scrape(metrics), 200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' }),
    close: unsubscribe,
  };
}
