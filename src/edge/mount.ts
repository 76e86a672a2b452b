/**
 * The mount path (issue 28): nlgate used as a library may answer under a prefix (`/gateway`) of the
 * host application. The prefix is worked out per request by the entry point that received it (a
 * Hono route, Express's `req.baseUrl`, or the `basePath` option), removed from the URL before the
 * gateway's own routes see it, and handed to them in the request's env, where a client cannot
 * forge it; `publicBase` and the console put it back into every link they publish.
 */
import type { Context } from 'hono';

/** The env key carrying the mount path of a request ('' at the root). */
export const MOUNT_ENV_KEY = 'nlgateMount';

/** A mount path as a router reported it, without trailing slashes (`/` is the root: ''). */
export function trimMount(path: string | undefined): string {
  return (path ?? '').replace(/\/+$/, '');
}

/** `/gateway/` → `/gateway`, `/` or undefined → ''; throws on a path that is not a plain absolute path (the `basePath` option). */
export function normalizeMount(path: string | undefined): string {
  if (path === undefined || path === '' || path === '/') return '';
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(path) || path.includes('//')) {
    throw new TypeError(`basePath must be an absolute URL path such as "/gateway" (got ${JSON.stringify(path)})`);
  }
  return trimMount(path);
}

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The mount path of the request being handled ('' when the gateway answers at the root). */
export function mountOf(c: Context): string {
  const env = c.env as Record<string, unknown> | undefined;
  const mount = env?.[MOUNT_ENV_KEY];
  return typeof mount === 'string' ? mount : '';
}

/**
 * The path of `pathname` below `mount`, or undefined when it is not below it (`/gateway/ask` under
 * `/gateway` is `/ask`; `/gateway` itself is `/`; `/gatewayx` is not below it). Compared segment by
 * segment, percent-decoded: a router reports a mount with its parameters decoded (`/t/a b/gw`).
 */
export function pathBelow(pathname: string, mount: string): string | undefined {
  if (mount === '') return pathname;
  const want = mount.split('/');
  const have = pathname.split('/');
  if (have.length < want.length) return undefined;
  for (let i = 1; i < want.length; i++) if (have[i] !== want[i] && decoded(have[i]!) !== want[i]) return undefined;
  return `/${have.slice(want.length).join('/')}`;
}

/** The same request with `mount` removed from its path (body, headers, signal carried over). */
export function unmountedRequest(request: Request, mount: string): Request | undefined {
  if (mount === '') return request;
  const url = new URL(request.url);
  const below = pathBelow(url.pathname, mount);
  if (below === undefined) return undefined;
  url.pathname = below;
  return new Request(url, request);
}

/** The env a mounted request is handled with: the host's env (the Node socket) plus the mount. */
export function mountedEnv(env: unknown, mount: string): Record<string, unknown> {
  return { ...(env !== null && typeof env === 'object' ? (env as Record<string, unknown>) : {}), [MOUNT_ENV_KEY]: mount };
}
