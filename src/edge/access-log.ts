import type { Context } from 'hono';
import type { Logger } from '../base/logger.ts';
import type { RouteInfo } from './routes.ts';

/**
 * One access-log line per request (issue 11 item 6): who (principal), what (protocol, agent,
 * method, route), the outcome (status, duration), and the request id that ties it to every other
 * line. Never a credential or token; query text only when `server.logQueries` is on. The route is
 * the path without its query string. For a streamed answer the duration is to the first byte.
 */
export function logAccess(log: Logger, c: Context, route: RouteInfo, startedAt: number, logQueries: boolean): void {
  const principal = c.get('principal');
  const agent = c.get('agent') ?? route.agent;
  const query = logQueries ? c.get('queryText') : undefined;
  log.info(
    {
      requestId: c.get('requestId'),
      principal: principal?.name ?? 'anonymous',
      principalId: principal?.id,
      protocol: route.protocol,
      ...(agent !== undefined ? { agent } : {}),
      method: c.req.method,
      route: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
      ...(query !== undefined ? { query } : {}),
    },
    'request',
  );
}
