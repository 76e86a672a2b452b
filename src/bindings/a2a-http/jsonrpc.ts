import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, toJsonRpcError, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { parseJsonRpc } from '../../protocol/a2a/index.ts';
import { transportStatusOf } from './errors.ts';
import { GatewayRequestHandler } from './handler.ts';
import { plainJsonRpcRequest } from './plain-request.ts';
import { requestHeader } from '../../base/request-headers.ts';

/**
 * The JSON-RPC binding (A2A 1.0 §9) on Hono: the gateway validates the body (§9.5 errors for bad
 * JSON, envelopes and params), then the SDK's framework-agnostic `JsonRpcTransportHandler` dispatches
 * the method to the gateway's request handler and builds the envelopes; streams go out as SSE
 * (`data: <JSON-RPC response>` per event, §9.4.2). Errors are JSON-RPC errors with HTTP 200, except
 * what A2A has no code for (401, 403, 413, 429, 503, 504), answered with that HTTP status.
 */

type Envelope = { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data?: unknown } };
const envelope = (id: string | number | null, err: unknown): Envelope => ({ jsonrpc: '2.0', id, error: toJsonRpcError(err) });

/** §3.6.2 versions this binding serves: 1.x (a missing `A2A-Version` header is taken as 1.0: accept loosely). */
export function versionSupported(c: Context): boolean {
  const requested = requestHeader(c.req.raw, 'a2a-version')?.trim();
  return !requested || /^1(\.\d+)?$/.test(requested);
}

/** True for a JSON body (or none declared): `application/json` or `application/a2a+json`. */
export function isJsonContentType(c: Context): boolean {
  const type = requestHeader(c.req.raw, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  return type === undefined || type === 'application/json' || type === 'application/a2a+json';
}

/** Sets the HTTP status (and Retry-After, WWW-Authenticate) for a gateway failure A2A has no code for. */
export function applyTransportStatus(c: Context, handler: GatewayRequestHandler, fallback: number): number {
  const failure = handler.failure;
  const status = failure ? (transportStatusOf(failure) ?? fallback) : fallback;
  if (failure?.retryAfter !== undefined) c.header('Retry-After', String(failure.retryAfter));
  if (status === 401) c.header('WWW-Authenticate', 'Bearer');
  return status;
}

/** Writes an event stream as SSE, the first event already pulled (so a failure before it is a plain error). */
export async function sendSse<T>(
  c: Context,
  iterator: AsyncIterator<T>,
  first: IteratorResult<T>,
  encode: (value: T) => unknown,
  onError: (err: unknown) => unknown,
): Promise<Response> {
  for (const [k, v] of Object.entries(SSE_HEADERS)) c.header(k, v);
  c.set('eventStream', true);
  return stream(c, async (s) => {
    // A client that leaves ends the producer too (its finally blocks release what it holds).
    s.onAbort(() => void iterator.return?.(undefined));
    try {
      if (!first.done) await s.write(formatSSEEvent(encode(first.value)));
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) await s.write(formatSSEEvent(encode(next.value)));
    } catch (err) {
      await s.write(formatSSEErrorEvent(onError(err)));
    }
  });
}

/** POST `/a2a/{agent}`: one JSON-RPC request (§9.4), answered as JSON or as an SSE stream. */
export async function serveJsonRpc(c: Context, handler: GatewayRequestHandler): Promise<Response> {
  if (!isJsonContentType(c)) {
    return c.json(envelope(null, new ContentTypeNotSupportedError(`Unsupported Content-Type "${requestHeader(c.req.raw, 'content-type')}"; expected application/json`)));
  }
  const parsed = parseJsonRpc(await c.req.text(), plainJsonRpcRequest);
  if (!parsed.ok) return c.json({ jsonrpc: '2.0', id: parsed.id, error: parsed.error });
  const id = parsed.request.id;
  if (!versionSupported(c)) return c.json(envelope(id, new VersionNotSupportedError(`A2A version ${requestHeader(c.req.raw, 'a2a-version')} is not supported; use 1.0`)));
  const context = new ServerCallContext({ requestedVersion: '1.0' });
  const out = await new JsonRpcTransportHandler(handler).handle(parsed.request, context);
  if (!(Symbol.asyncIterator in out)) return c.json(out, applyTransportStatus(c, handler, 200) as 200);
  const iterator = out[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await iterator.next();
  } catch (err) {
    return c.json(envelope(id, err), applyTransportStatus(c, handler, 200) as 200);
  }
  return sendSse(c, iterator, first, (v) => v, (err) => envelope(id, err));
}
