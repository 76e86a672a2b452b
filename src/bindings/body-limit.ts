import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import { requestHeader } from '../base/request-headers.ts';

export interface BodyLimitOptions {
  maxSize: number;
  /** Renders the refusal in the binding's own wire shape (413). */
  onError: (c: Context) => Response | Promise<Response>;
}

/**
 * RFC 9110 8.6 / 9112 6.3: a request body bounded to `maxSize` bytes. Hono's `bodyLimit` reads
 * `c.req.raw.body` first, which makes @hono/node-server build a full web `Request` with a
 * `ReadableStream` body for every request (a tenth of the CPU of a pass-through `/ask`, by
 * `npm run bench:profile`). A declared Content-Length (the usual case) is checked from the header
 * alone and the body is then read straight from the socket; a chunked body still goes through Hono's
 * counting reader.
 */
export function bodyLimit(opts: BodyLimitOptions): MiddlewareHandler {
  const counting = honoBodyLimit(opts);
  // Not async: a pass-through hands on next()'s own promise (an async one costs two more, issue 25).
  return (c, next) => {
    const length = requestHeader(c.req.raw, 'content-length');
    if (length !== undefined && requestHeader(c.req.raw, 'transfer-encoding') === undefined) {
      // Node's parser has already refused a malformed Content-Length (400) before any handler runs.
      return Number(length) > opts.maxSize ? Promise.resolve(opts.onError(c)) : next();
    }
    return counting(c, next);
  };
}
