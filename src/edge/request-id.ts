import type { Context, MiddlewareHandler } from 'hono';
import type { ServerResponse } from 'node:http';
import { newRequestId } from '../core/ids.ts';

/**
 * One id per request: echoed as `X-Request-Id`, in every log line, and carried to adapters
 * (ctx.requestId). On Node the header goes on the response itself: Hono's `c.header` makes every
 * answer carry a web `Headers` (built, validated, then copied out again). On a bare Hono app under
 * wrk that cost ≈ 3 µs of CPU per request against ≈ 1 µs for Node's own `setHeader`. In process
 * (`app.request`, no Node response) it is set through Hono.
 */
function assignRequestId(c: Context): void {
  const id = newRequestId();
  c.set('requestId', id);
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing) outgoing.setHeader('X-Request-Id', id);
  else c.header('X-Request-Id', id);
}

/**
 * `middleware` with the request's id given first (assignRequestId), in its layer of Hono's compose:
 * a middleware of its own was a layer more, and each layer is an async dispatch, two or three
 * promises a request (issue 25, `npx tsx bench/promises.ts`). Not async: it hands on the wrapped
 * middleware's own promise.
 */
export function withRequestId(middleware: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => {
    assignRequestId(c);
    return middleware(c, next);
  };
}
