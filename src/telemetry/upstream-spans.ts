import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { upstreamChannels, type UpstreamEndEvent, type UpstreamExchange, type UpstreamResponseEvent } from '../core/upstream-events.ts';
import { errorLabel } from './labels.ts';
import { injectInto, tracer } from './tracing.ts';

/**
 * A client span per upstream HTTP call (OTel HTTP client conventions), child of whatever span is
 * active where the adapter called (the core call, the inbound request), with `traceparent` and
 * `tracestate` added to the request's headers so the agent continues the same trace. Subscribed
 * once per process, while tracing runs. Returns the unsubscribe.
 */
export function traceUpstreamCalls(): () => void {
  const spans = new WeakMap<UpstreamExchange, Span>();
  const onRequest = (m: unknown) => {
    const exchange = m as UpstreamExchange;
    exchange.follow = true; // the span takes the response's status
    const url = safeUrl(exchange.url);
    const span = tracer().startSpan(
      exchange.method,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': exchange.method,
          // Origin and path only: a query string can hold a user's question (legacy NLWeb GET /ask?query=).
          ...(url ? { 'url.full': `${url.origin}${url.pathname}`, 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) } : {}),
          'gen_ai.agent.name': exchange.agent,
          ...(exchange.kind ? { 'nlgate.adapter': exchange.kind } : {}),
        },
      },
      context.active(),
    );
    spans.set(exchange, span);
    injectInto(exchange.headers, trace.setSpan(context.active(), span));
  };
  const onResponse = (m: unknown) => {
    const e = m as UpstreamResponseEvent;
    const span = spans.get(e.exchange);
    span?.setAttribute('http.response.status_code', e.status);
    if (span && e.status >= 400) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', String(e.status));
    }
  };
  const onEnd = (m: unknown) => {
    const e = m as UpstreamEndEvent;
    const span = spans.get(e.exchange);
    if (!span) return;
    if (e.error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorLabel(e.error) });
      span.setAttribute('error.type', errorLabel(e.error));
    }
    span.end();
    spans.delete(e.exchange);
  };
  upstreamChannels.request.subscribe(onRequest);
  upstreamChannels.response.subscribe(onResponse);
  upstreamChannels.end.subscribe(onEnd);
  return () => {
    upstreamChannels.request.unsubscribe(onRequest);
    upstreamChannels.response.unsubscribe(onResponse);
    upstreamChannels.end.unsubscribe(onEnd);
  };
}

function safeUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}
