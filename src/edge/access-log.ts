import type { Context } from 'hono';
import { lineSink, type Logger } from '../base/logger.ts';
import type { RouteInfo } from './routes.ts';

/** Writes the access line of one request. */
export type AccessLogger = (c: Context, route: RouteInfo, startedAt: number, logQueries: boolean) => void;

/** The fields of an access line, in the order they are written. */
export interface AccessFields {
  requestId: string;
  principal: string;
  principalId: string | undefined;
  protocol: string;
  agent: string | undefined;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  query: string | undefined;
}

function fieldsOf(c: Context, route: RouteInfo, startedAt: number, logQueries: boolean): AccessFields {
  const principal = c.get('principal');
  return {
    requestId: c.get('requestId'),
    principal: principal?.name ?? 'anonymous',
    principalId: principal?.id,
    protocol: route.protocol,
    agent: c.get('agent') ?? route.agent,
    method: c.req.method,
    route: c.req.path,
    status: c.res.status,
    durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
    query: logQueries ? c.get('queryText') : undefined,
  };
}

/** `,"key":"value"` with the value JSON-quoted, or nothing for an absent value (as pino leaves it out). */
const str = (key: string, value: string | undefined) => (value === undefined ? '' : `,"${key}":${JSON.stringify(value)}`);

/**
 * The access line as pino writes `log.info(fields, 'request')` with createLogger's defaults, built
 * without pino's generic serializer. Strings are quoted by JSON.stringify, as pino's own escaping does
 * (except that a lone surrogate is escaped here and written raw by pino).
 */
export function accessLineBody(f: AccessFields): string {
  return (
    `${str('requestId', f.requestId)}${str('principal', f.principal)}${str('principalId', f.principalId)}${str('protocol', f.protocol)}${str('agent', f.agent)}` +
    `${str('method', f.method)}${str('route', f.route)},"status":${f.status},"durationMs":${f.durationMs}${str('query', f.query)},"msg":"request"}\n`
  );
}

/** The access line's fields as an object, in the same order, absent ones left out (the path of any other logger). */
export function accessObject(f: AccessFields): Record<string, string | number> {
  const { principalId, agent, query, ...rest } = f;
  return {
    requestId: rest.requestId,
    principal: rest.principal,
    ...(principalId !== undefined ? { principalId } : {}),
    protocol: rest.protocol,
    ...(agent !== undefined ? { agent } : {}),
    method: rest.method,
    route: rest.route,
    status: rest.status,
    durationMs: rest.durationMs,
    ...(query !== undefined ? { query } : {}),
  };
}

/**
 * The access log (issue 11 item 6): one line per request saying who (principal), what (protocol,
 * agent, method, route), the outcome (status, duration), and the request id that ties it to every
 * other line. Never a credential or token; query text only when `server.logQueries` is on. The route
 * is the path without its query string. For a streamed answer the duration is to the first byte.
 *
 * Written on every request, so for the gateway's own logger (createLogger) the line is built by hand
 * and handed to pino's stream (issue 25: pino's serializer walked the fields, checked serializers and
 * escaped each string in JavaScript). Any other logger gets `info(fields, 'request')`.
 */
export function accessLogger(log: Logger): AccessLogger {
  const sink = lineSink(log);
  if (!sink) {
    return (c, route, startedAt, logQueries) => log.info(accessObject(fieldsOf(c, route, startedAt, logQueries)), 'request');
  }
  return (c, route, startedAt, logQueries) => {
    if (sink.infoEnabled()) sink.write(sink.infoHead() + accessLineBody(fieldsOf(c, route, startedAt, logQueries)));
  };
}
