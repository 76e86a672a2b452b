import type { Context } from 'hono';
import { toJsonRpcError, toRestErrorBody } from '@a2a-js/sdk/errors';
import type { GatewayError } from '../../base/errors.ts';
import { a2aErrorOf } from './errors.ts';
import { isRestPath, restJson } from './rest-json.ts';

/** True for an A2A JSON-RPC end-point path (`/a2a/{agent}` or `/a2a/{agent}/`). */
const isJsonRpcPath = (path: string) => /^\/a2a\/[^/]+\/?$/.test(path);

/**
 * How the edge (src/edge) recognises A2A requests and refuses them in A2A's own shape before the
 * binding runs (401, 403, 413, 415, 429): a JSON-RPC error envelope on the JSON-RPC end-point, the
 * HTTP+JSON error body (§11.6) elsewhere, with the HTTP status of the gateway code (A2A has no code
 * for these, docs/a2a.md "Errors").
 */
export const a2aEdgeHooks = {
  claims: (_method: string, path: string): boolean => path === '/.well-known/agent-card.json' || path.startsWith('/a2a/'),
  jsonBody: (method: string, path: string): boolean => method === 'POST' && path.startsWith('/a2a/') && !path.endsWith(':subscribe'),
  renderError: (c: Context, err: GatewayError): Response => {
    const status = err.mapping.http as 400;
    const a2a = a2aErrorOf(err);
    if (c.req.method === 'POST' && isJsonRpcPath(c.req.path)) return c.json({ jsonrpc: '2.0', id: null, error: toJsonRpcError(a2a) }, status);
    const body = toRestErrorBody(a2a, status);
    return isRestPath(c.req.path) ? restJson(c, body, status) : c.json(body, status);
  },
};
