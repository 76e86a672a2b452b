import type { Context } from 'hono';
import type { CanonicalResponse, WireVersion } from '../../../protocol/nlweb/index.ts';
import type { GatewayError } from '../../../base/errors.ts';
import type { AskStream } from '../../../core/gateway-types.ts';
import type { ItemDecorator } from '../actions.ts';

/** What a live stream renderer needs besides the stream itself. */
export interface StreamRendering {
  /** The client's `prefer.response_format`, unnormalised. */
  format: string | undefined;
  /** Aborted when the client goes away, so the agent call stops. */
  abort: AbortController;
  /** Adds NLWeb 5 actions to each item. */
  decorate: ItemDecorator;
}

/**
 * One NLWeb wire generation (v0.54 or v0.55): how the canonical answer, a live stream and a refused
 * request look to a client of that generation. The binding picks one per request, once, from the
 * version the request declares (protocol/nlweb/version.ts); nothing else in the binding depends on it.
 */
export interface NlwebWire {
  readonly version: WireVersion;
  /** A whole response (4.1) as one JSON body, with its HTTP status. */
  json(c: Context, response: CanonicalResponse, format: string | undefined): Response;
  /** A live answer as SSE (8.4 / 6). */
  stream(c: Context, live: AskStream, rendering: StreamRendering): Response;
  /** A request refused before any agent ran (4.1.4 failure), with the status from ERROR_TABLE. */
  error(c: Context, err: GatewayError): Response;
}
