import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { builtinAdapters } from '../adapters/index.ts';
import { builtinBindings } from './bindings/index.ts';
import { mountBinding } from './bindings/mount.ts';
import { renderNlwebError } from './bindings/nlweb-http/render/index.ts';
import type { Binding, ServerSettings } from './bindings/types.ts';
import type { GatewayConfig } from './config/schema.ts';
import type { AdapterFactory } from './core/agent.ts';
import { reportError } from './bindings/report.ts';
import { GatewayError } from './base/errors.ts';
import { createEdge } from './edge/index.ts';
import { withRequestId } from './edge/request-id.ts';
import { createGateway } from './core/gateway.ts';
import { consoleEnabled, createConsole } from './console/index.ts';
import type { Gateway } from './core/gateway-types.ts';
import { createLogger, type Logger } from './base/logger.ts';
// Type-only: the Hono context variables the bindings set (declaration merging, nothing runs).
import type {} from './bindings/credentials.ts';
import { publishRejection } from './core/core-events.ts';
import { createStore } from './store/index.ts';
import type { Store } from './store/store.ts';
import { createTelemetry, type Telemetry } from './telemetry/index.ts';

export interface AppOptions {
  /** Overrides the store built from `config.store` (tests share one store between two apps). */
  store?: Store;
  log?: Logger;
  adapters?: readonly AdapterFactory<any>[];
  bindings?: readonly Binding[];
  /** Folder that relative paths in the config resolve against. */
  baseDir?: string;
  replicaId?: string;
}

export interface GatewayApp {
  app: Hono;
  gateway: Gateway;
  telemetry: Telemetry;
  /** Shutdown's first step: `/readyz` answers 503 from now on (the process still serves). */
  setDraining(): void;
  close(): Promise<void>;
}

/** Builds the Hono app of one gateway replica from a validated config (design.md "The shape"). */
export async function createApp(config: GatewayConfig, opts: AppOptions = {}): Promise<GatewayApp> {
  const log = opts.log ?? createLogger();
  const ownStore = !opts.store;
  const telemetry = createTelemetry({ agents: config.agents });
  const store = telemetry.instrumentStore(opts.store ?? (await createStore(config.store, log)));
  const core = await createGateway({
    agents: config.agents,
    adapters: opts.adapters ?? builtinAdapters,
    defaults: config.defaults,
    limits: config.limits,
    upstreamLimits: config.limits,
    store,
    log,
    baseDir: opts.baseDir ?? process.cwd(),
    ...(config.defaultAgent ? { defaultAgent: config.defaultAgent } : {}),
    ...(opts.replicaId ? { replicaId: opts.replicaId } : {}),
  });
  const gateway = telemetry.instrumentGateway(core);
  let draining = false;
  const bindings = opts.bindings ?? builtinBindings;
  const edge = createEdge({
    server: config.server,
    limits: config.limits,
    auth: config.auth,
    bindings,
    store,
    log,
    fallback: (c, err) => renderNlwebError(c, err),
  });
  const settings: ServerSettings = {
    bodyLimitBytes: config.server.bodyLimitBytes,
    allowedOrigins: config.server.allowedOrigins,
    allowedHosts: config.server.allowedHosts,
    promiseTtlMs: config.defaults.promiseTtlMs,
    limits: config.limits,
    ...(config.server.publicUrl ? { publicUrl: config.server.publicUrl } : {}),
    publicBase: edge.publicBase,
    identity: edge.verifier,
  };

  const app = new Hono();
  // The request id first (every log line and metric of the request names it), then the telemetry.
  app.use('*', withRequestId(telemetry.middleware));
  // Browser clients (the NLWeb search components, old chat pages) need CORS; off unless configured.
  if (config.server.corsOrigins.length > 0) {
    const origins = config.server.corsOrigins;
    app.use('*', cors({ origin: origins.includes('*') ? '*' : origins, exposeHeaders: ['Mcp-Session-Id', 'Retry-After'], maxAge: 600 }));
  }
  // Host/Origin, content type, identity, the gateway-wide limit, the access log (src/edge).
  app.use('*', edge.middleware);
  // Liveness: the process answers. Nothing else is checked, so a Redis outage never restarts replicas.
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  // Readiness: this replica should get traffic: not shutting down, and its store answers.
  app.get('/readyz', async (c) => {
    if (draining) return c.json({ status: 'draining', store: store.kind }, 503);
    try {
      await store.ping();
      // The replica id tells workers and replicas apart (the lease owner of the promises it runs).
      return c.json({ status: 'ready', store: store.kind, replica: gateway.replicaId });
    } catch {
      return c.json({ status: 'unavailable', store: store.kind }, 503);
    }
  });
  app.get('/agents', (c) => c.json({ agents: gateway.listAgents() }));
  if (config.server.metricsPort === undefined) {
    // Behind auth when an auth section is configured (the edge sets a verified principal); open otherwise.
    const authConfigured = Boolean((config as { auth?: unknown }).auth);
    app.get('/metrics', (c) => {
      if (authConfigured && !c.get('principal')?.verified) return renderNlwebError(c, new GatewayError('UNAUTHORIZED', 'Metrics need a verified credential'));
      return telemetry.metricsResponse(c);
    });
  }

  // The web console (src/console): its capture marker runs before the bindings, after the edge.
  const webConsole = consoleEnabled(config) ? createConsole(config, gateway, edge.publicBase) : undefined;
  if (webConsole) {
    app.use('*', webConsole.marker);
    app.route('/', webConsole.routes);
  }

  for (const binding of bindings) mountBinding(app, '/', binding.routes({ gateway, settings }));
  for (const binding of bindings.filter((b) => b.perAgent)) mountBinding(app, '/agents/:agent', binding.routes({ gateway, settings }));

  // The one error handler: bindings that need their own wire format catch and render before this;
  // anything reaching here is answered as an NLWeb failure, never a stack trace or an HTML page.
  app.onError((err, c) => {
    const gwErr = err instanceof HTTPException ? new GatewayError(err.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST', err.message) : reportError(log, c, err, 'gateway');
    if (gwErr.code === 'PAYLOAD_TOO_LARGE') publishRejection('bodyLimitBytes');
    return renderNlwebError(c, gwErr);
  });
  app.notFound((c) => renderNlwebError(c, new GatewayError('INVALID_REQUEST', `No route for ${c.req.method} ${c.req.path}`), 404));

  return {
    app,
    gateway,
    telemetry,
    setDraining: () => {
      draining = true;
    },
    close: async () => {
      webConsole?.close();
      await gateway.close();
      if (ownStore) await store.close();
      telemetry.close();
    },
  };
}
