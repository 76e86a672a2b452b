import { context, propagation, ROOT_CONTEXT, trace, type Context, type TextMapGetter, type Tracer } from '@opentelemetry/api';

/**
 * OpenTelemetry tracing (issue 13 "Traces"), configured by the standard `OTEL_*` variables and off
 * when none asks for it: then the SDK is not even loaded and every span site is one boolean check.
 */
let active = false;

/** True once startTracing() installed an SDK: span sites do nothing when false. */
export function tracingActive(): boolean {
  return active;
}

/** The gateway's tracer (a no-op one until the SDK is started). */
export function tracer(): Tracer {
  return trace.getTracer('nlgate');
}

/**
 * Whether the environment asks for traces: an OTLP endpoint, or an explicit `OTEL_TRACES_EXPORTER`
 * other than `none`; never when `OTEL_SDK_DISABLED=true`. (OTEL_SERVICE_NAME alone names the service
 * but does not switch export on.)
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the OpenTelemetry Node SDK from the `OTEL_*` variables (exporter, endpoint, protocol,
 * sampler, propagators, resource) when tracingRequested(); returns the flush-and-stop to call at exit.
 * Only traces: metrics stay on Prometheus `/metrics`, logs on stdout.
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  if (!tracingRequested(env)) return async () => undefined;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || 'nlgate',
    // Metrics and logs have their own channels (Prometheus, stdout): no OTLP exporters for them.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  active = true;
  const { traceUpstreamCalls } = await import('./upstream-spans.ts');
  const untrace = traceUpstreamCalls();
  return async () => {
    active = false;
    untrace();
    await sdk.shutdown();
  };
}

const headerGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  // Only the W3C fields are read by name; listing keys is needed by no propagator we install.
  keys: () => ['traceparent', 'tracestate', 'baggage'],
};

/** The trace context a client sent as W3C `traceparent`/`tracestate` HTTP headers (ROOT when none). */
export function contextFromHeaders(headers: Headers): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}

/** The trace context from a protocol's own fields (MCP `params._meta`, NLIP token submessages). */
export function contextFromFields(fields: Record<string, string>): Context {
  return propagation.extract(ROOT_CONTEXT, fields);
}

/** Writes the active trace context into outgoing headers (`traceparent`, `tracestate`). */
export function injectInto(headers: Record<string, string>, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers);
}
