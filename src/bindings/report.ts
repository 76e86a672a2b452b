import type { Context } from 'hono';
import { toGatewayError, type GatewayError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';

/**
 * What a binding's error handler caught, as a GatewayError; an INTERNAL_ERROR is logged with the
 * request id and the stack of its cause (issue 11 item 6: no internal error goes unlogged). The
 * client still sees only the generic message.
 */
export function reportError(log: Logger, c: Context, err: unknown, where: string): GatewayError {
  const gwErr = toGatewayError(err);
  if (gwErr.code === 'INTERNAL_ERROR') {
    const cause = gwErr === err ? (gwErr.cause ?? err) : err;
    log.error({ requestId: c.get('requestId'), err: String(cause), stack: (cause as Error | undefined)?.stack, method: c.req.method, route: c.req.path }, `${where}: internal error`);
  }
  return gwErr;
}
