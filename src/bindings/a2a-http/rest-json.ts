import type { Context } from 'hono';

/** The media type of every HTTP+JSON answer (A2A 1.0 §11), as the reference server (a2a-js's REST router) sends it. */
export const A2A_CONTENT_TYPE = 'application/a2a+json';

/** True for an HTTP+JSON path (`/a2a/{agent}/rest/...`). */
export const isRestPath = (path: string): boolean => /\/a2a\/[^/]+\/rest\//.test(path);

/** An HTTP+JSON answer: `body` as JSON, typed `application/a2a+json` (Hono's `c.json` would type it `application/json`). */
export function restJson(c: Context, body: unknown, status = 200): Response {
  return c.body(JSON.stringify(body), status as 200, { 'content-type': A2A_CONTENT_TYPE });
}
