import type { Context } from 'hono';
import { GatewayError, toGatewayError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';

/**
 * Whether `err` is the client's own doing, not the gateway's: the client closed the connection or
 * Node cut a request that came too slowly (`requestTimeout`, the 408 of a slow-drip body), so the
 * body stream failed with `aborted`. Nobody is left to answer, and nothing is wrong with the gateway.
 */
function clientWentAway(c: Context, err: unknown): boolean {
  if (c.req.raw.signal?.aborted) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  return typeof e === 'object' && e !== null && e.code === 'ECONNRESET' && e.message === 'aborted';
}

/**
 * What a binding's error handler caught, as a GatewayError; an INTERNAL_ERROR is logged with the
 * request id and the stack of its cause (issue 11 item 6: no internal error goes unlogged). The
 * client still sees only the generic message. A client that went away mid-request is logged at info
 * without a stack (issue 24, hole 5: any client could otherwise write error lines at will).
 */
export function reportError(log: Logger, c: Context, err: unknown, where: string): GatewayError {
  if (!(err instanceof GatewayError) && clientWentAway(c, err)) {
    log.info({ requestId: c.get('requestId'), method: c.req.method, route: c.req.path }, `${where}: the client closed the request before it was read (or was too slow)`);
    return new GatewayError('CANCELLED', 'The client closed the request', { cause: err });
  }
  const gwErr = toGatewayError(err);
  if (gwErr.code === 'INTERNAL_ERROR') {
    const cause = gwErr === err ? (gwErr.cause ?? err) : err;
    log.error({ requestId: c.get('requestId'), err: String(cause), stack: (cause as Error | undefined)?.stack, method: c.req.method, route: c.req.path }, `${where}: internal error`);
  }
  return gwErr;
}
