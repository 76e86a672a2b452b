import type { Context } from 'hono';
import type { GatewayError } from '../base/errors.ts';
import type { RouteInfo } from './routes.ts';

/** RFC 6750 3: the challenge of a 401; `invalid_token` when a credential was presented and refused. */
export function bearerChallenge(error?: 'invalid_token', description?: string): string {
  if (!error) return 'Bearer realm="nlgate"';
  const desc = description ? `, error_description="${description.replace(/["\\]/g, '')}"` : '';
  return `Bearer realm="nlgate", error="${error}"${desc}`;
}

/**
 * Renders a refusal made at the edge in the protocol of the route (the binding's own error shape),
 * falling back to an NLWeb failure for routes no binding claims. 401 carries `WWW-Authenticate`
 * (RFC 6750), 429 `Retry-After`.
 */
export function renderRefusal(c: Context, route: RouteInfo, err: GatewayError, fallback: (c: Context, err: GatewayError) => Response, challenge?: string): Response {
  const res = route.binding?.edge?.renderError(c, err) ?? fallback(c, err);
  if (err.retryAfter !== undefined && !res.headers.has('Retry-After')) res.headers.set('Retry-After', String(err.retryAfter));
  if (res.status === 401) res.headers.set('WWW-Authenticate', challenge ?? bearerChallenge());
  return res;
}
