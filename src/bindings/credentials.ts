import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { anonymousPrincipal, type Principal } from '../core/principal.ts';
import { newRequestId } from '../core/ids.ts';
import { requestHeader } from '../base/request-headers.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by the edge (src/edge) once the caller's credential is verified, else anonymous by address. */
    principal: Principal;
    /** Set by the request-id middleware; echoed as `X-Request-Id`, carried to adapters as ctx.requestId. */
    requestId: string;
    /** The agent a binding routed the request to, for the access log (src/edge/access-log.ts). */
    agent: string;
    /** The query text, for the access log when `server.logQueries` is on. */
    queryText: string;
    /**
     * Set by a binding that answers with an SSE stream: the HTTP telemetry then times the answer to
     * its end without reading the response's headers (src/telemetry/http.ts).
     */
    eventStream: boolean;
  }
}

/**
 * The credentials a client presented on the transport (`Authorization`), as every binding hands them
 * to the core. The core forwards them only to agents configured with `forwardCredentials: true`.
 */
export function clientCredentials(c: Context): { authorization?: string } | undefined {
  const authorization = requestHeader(c.req.raw, 'authorization');
  return authorization ? { authorization } : undefined;
}

/** The client's address as the socket reports it; undefined for in-process requests (`app.request()`). */
export function clientAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** What every binding passes to the core about the caller: principal, credentials, request id. */
export function callerOf(c: Context): { principal: Principal; requestId: string; credentials?: { authorization?: string } } {
  const credentials = clientCredentials(c);
  return {
    principal: c.get('principal') ?? anonymousPrincipal(clientAddress(c)),
    requestId: c.get('requestId') ?? newRequestId(),
    ...(credentials ? { credentials } : {}),
  };
}
