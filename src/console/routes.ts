import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { mountOf } from '../edge/mount.ts';
import { callerOf } from '../bindings/credentials.ts';
import type { Gateway } from '../core/gateway-types.ts';
import { consoleAgents } from './agents.ts';
import { loadConsoleAssets, type ConsoleAssets } from './bundle.ts';
import type { CaptureRing } from './capture.ts';
import { consolePage } from './page.ts';
import { requestHeader } from '../base/request-headers.ts';

/** The request header by which the console asks for its call's upstream exchanges to be kept. */
export const CAPTURE_HEADER = 'x-nlgate-capture';

/** No inline script or style, nothing from elsewhere but result images (issue 14: strict CSP). */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface ConsoleRoutesOptions {
  gateway: Gateway;
  ring: CaptureRing;
  /** Agents configured with `requireAuth`. */
  requireAuth: ReadonlySet<string>;
  /** The gateway's public base URL for this request (src/edge: publicUrl or the checked origin, plus the mount path). */
  publicBase: (c: Context) => string;
  /** Whether callers must present credentials at the edge (API keys or JWT configured). */
  authConfigured: boolean;
}

/** Marks requests carrying `X-Nlgate-Capture: 1` for capture, owned by the calling principal. */
export function captureMarker(ring: CaptureRing): MiddlewareHandler {
  return (c, next) => {
    if (requestHeader(c.req.raw, CAPTURE_HEADER) === '1') {
      const { principal, requestId } = callerOf(c);
      ring.mark(requestId, principal.id);
    }
    return next();
  };
}

/** How long after start-up the console's assets are built (or read) ahead of a first visit. */
const WARM_UP_DELAY_MS = 1000;

/** The console: the page and its assets, and `/console/api/*` (agents, session, wire). */
export function consoleRoutes(opts: ConsoleRoutesOptions): Hono {
  const app = new Hono();
  let assets: Promise<ConsoleAssets> | undefined;
  const getAssets = () => (assets ??= loadConsoleAssets().catch((err) => ((assets = undefined), Promise.reject(err))));
  // Built just after start-up rather than on the first visit, and not in the way of the first
  // requests: a replica answers /healthz before esbuild has started (issue 23, start time).
  setTimeout(() => void getAssets().catch(() => undefined), WARM_UP_DELAY_MS).unref();

  app.use('/console/*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CONSOLE_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
  });
  const page = (c: Parameters<MiddlewareHandler>[0]) => {
    c.header('Content-Security-Policy', CONSOLE_CSP);
    return c.html(consolePage(mountOf(c)));
  };
  app.get('/console', page);
  app.get('/console/', page);
  app.get('/console/assets/app.js', async (c) => {
    const { js } = await getAssets();
    return c.body(js, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });
  app.get('/console/assets/styles.css', async (c) => {
    const { css } = await getAssets();
    return c.body(css, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  });
  app.get('/console/api/session', (c) => {
    const { principal } = callerOf(c);
    return c.json({ principal: { name: principal.name, verified: principal.verified }, authConfigured: opts.authConfigured });
  });
  app.get('/console/api/agents', async (c) => {
    const base = opts.publicBase(c).replace(/\/+$/, '');
    return c.json({ agents: await consoleAgents(opts.gateway, base, opts.requireAuth) });
  });
  app.get('/console/api/wire/:requestId', (c) => {
    const { principal } = callerOf(c);
    const exchanges = opts.ring.get(c.req.param('requestId'), principal.id);
    if (!exchanges) return c.json({ error: { code: 'NOT_FOUND', message: 'No capture for this request id' } }, 404);
    return c.json({ requestId: c.req.param('requestId'), exchanges });
  });
  app.all('/console/api/*', (c) => c.json({ error: { code: 'NOT_FOUND', message: `No console route for ${c.req.method} ${c.req.path}` } }, 404));
  return app;
}
