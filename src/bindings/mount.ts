import type { Context, ErrorHandler, Hono } from 'hono';
import type { H } from 'hono/types';

/**
 * Each binding renders what its routes throw in its own wire shape (its last resort: never a stack
 * trace). Hono's `app.route(path, sub)` does that by wrapping every handler of a sub-app that has
 * its own `onError` in a `compose` of its own (hono-base.js `route`): two more async frames and
 * about six promises per handler, on every request (`npx tsx bench/promises.ts`: about 11 of the
 * 104 an NLWeb `/ask` made). `mountBinding` keeps the same rule with one `.then` per handler.
 */
const renderers = new WeakMap<Hono, ErrorHandler>();

/** Sets a binding app's error renderer: Hono's `onError` (the app served on its own) and the one `mountBinding` uses. */
export function onBindingError(app: Hono, render: ErrorHandler): void {
  app.onError(render);
  renderers.set(app, render);
}

/**
 * Mounts a binding's routes under `path` as Hono's `route()` does, each handler guarded by the
 * binding's renderer (`onBindingError`): an `Error` thrown by the handler (or by the handlers after
 * it, through `next()`) is rendered by it and becomes the response, as in Hono's `compose`; anything
 * else is thrown on. A binding without a renderer is mounted as it is.
 */
export function mountBinding(app: Hono, path: string, sub: Hono): void {
  const render = renderers.get(sub);
  const under = app.basePath(path);
  for (const r of sub.routes) under.on(r.method, r.path, render ? guarded(r.handler, render) : r.handler);
}

function guarded(handler: H, render: ErrorHandler): H {
  const rescue = async (err: unknown, c: Context): Promise<Response> => {
    if (!(err instanceof Error)) throw err;
    c.error = err;
    c.res = await render(err, c);
    return c.res;
  };
  return (c: Context, next: () => Promise<void>) => {
    try {
      const out = handler(c, next);
      return out instanceof Promise ? out.then(undefined, (err: unknown) => rescue(err, c)) : out;
    } catch (err) {
      return rescue(err, c);
    }
  };
}
