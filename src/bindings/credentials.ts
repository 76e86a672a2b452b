import type { Context } from 'hono';

/**
 * The credentials a client presented on the transport (`Authorization`), as every binding hands them
 * to the core. The core forwards them only to agents configured with `forwardCredentials: true`.
 */
export function clientCredentials(c: Context): { authorization?: string } | undefined {
  const authorization = c.req.header('authorization');
  return authorization ? { authorization } : undefined;
}
