import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { GatewayConfig } from '../config/schema.ts';
import type { Gateway } from '../core/gateway-types.ts';
import { CaptureRing } from './capture.ts';
import { createRedactor } from './redact.ts';
import { captureMarker, consoleRoutes } from './routes.ts';
import { subscribeCapture } from './subscribe.ts';

export interface Console {
  routes: Hono;
  marker: MiddlewareHandler;
  ring: CaptureRing;
  close(): void;
}

/** True for a listen address only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

/** Whether the console is served: `console.enabled`, else on only when the gateway listens on loopback. */
export function consoleEnabled(config: GatewayConfig): boolean {
  return config.console.enabled ?? isLoopbackHost(config.server.host);
}

/** Builds the console (issue 14) for one replica: routes, the capture marker and its ring. */
export function createConsole(config: GatewayConfig, gateway: Gateway, publicBase: (c: Context) => string): Console {
  const headerNames = config.agents.flatMap((a) => Object.keys((a as { headers?: Record<string, string> }).headers ?? {}));
  const ring = new CaptureRing(createRedactor(headerNames));
  const unsubscribe = subscribeCapture(ring);
  const requireAuth = new Set(config.agents.filter((a) => a.requireAuth).map((a) => a.name));
  const routes = consoleRoutes({
    gateway,
    ring,
    requireAuth,
    // With an `auth` section (API keys, JWT issuers: src/edge) the console offers an API key field.
    authConfigured: requireAuth.size > 0 || (config as { auth?: unknown }).auth !== undefined,
    publicBase,
  });
  return { routes, marker: captureMarker(ring), ring, close: unsubscribe };
}
