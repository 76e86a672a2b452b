import { channel } from 'node:diagnostics_channel';

/**
 * Every upstream HTTP exchange an adapter makes is published on these `node:diagnostics_channel`
 * channels, so telemetry (metrics, traces) and the console's wire capture can observe upstream calls
 * without the core or the adapters knowing them. Publishing costs nothing when no one subscribes.
 *
 * Order per exchange: `request` (subscribers may add headers, e.g. `traceparent`, before it is sent),
 * then `response` (status and headers), then zero or more `chunk`s of the body as it is read, then
 * exactly one `end`. `response` and `chunk` are published only for an exchange a `request`
 * subscriber asked to follow (`exchange.follow = true`): the console does for a captured request,
 * tracing for every exchange; metrics need only `end`, which carries the status.
 */
export interface UpstreamExchange {
  /** Unique per process; correlates the four events of one exchange. */
  id: number;
  /** The inbound request this call serves (CallContext.requestId); absent for background calls. */
  requestId?: string;
  /** The agent's configured name, and its adapter kind (`nlweb`, `nlip`, `mcp`, ...). */
  agent: string;
  kind?: string;
  method: string;
  /** The URL without user-info credentials. */
  url: string;
  /**
   * The request headers as they will be sent. Mutable in `request` subscribers (to add trace
   * headers). They hold secrets (configured API keys, forwarded credentials): redact before keeping.
   */
  headers: Record<string, string>;
  /** The request body when it is text (JSON); absent for streams and binary bodies. */
  body?: string;
  /** `performance.now()` at the start. */
  startedAt: number;
  /**
   * Set by a `request` subscriber that wants this exchange's `response` and `chunk` events. Without
   * it they are not built: with the console on, every exchange turned its response's headers into a
   * record and decoded every body chunk as text, only for the capture to drop them (issue 25).
   */
  follow?: boolean;
}

export interface UpstreamResponseEvent {
  exchange: UpstreamExchange;
  status: number;
  headers: Record<string, string>;
}

export interface UpstreamChunkEvent {
  exchange: UpstreamExchange;
  /** A piece of the response body as text, in the order read. */
  chunk: string;
}

export interface UpstreamEndEvent {
  exchange: UpstreamExchange;
  /** The response's status, when one arrived (so counting outcomes needs no `response` subscription). */
  status?: number;
  /** The GatewayError code when the exchange failed (TIMEOUT, UPSTREAM_ERROR, CANCELLED, ...). */
  error?: string;
  /** Response body bytes read. */
  bytes: number;
  durationMs: number;
}

export const upstreamChannels = Object.freeze({
  request: channel('nlgate:upstream:request'),
  response: channel('nlgate:upstream:response'),
  chunk: channel('nlgate:upstream:chunk'),
  end: channel('nlgate:upstream:end'),
});
