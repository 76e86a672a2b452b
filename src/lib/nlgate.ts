/**
 * nlgate as a library (issue 28): one gateway composed from a config, offered as a Hono sub-app, a
 * fetch handler and a Node request listener. `nlgate serve` (src/server.ts) is a user of the same
 * composition: it listens with `fetch`.
 */
import type { IncomingMessage } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { basePath as routeBasePath } from 'hono/route';
import { builtinAdapters } from '../../adapters/index.ts';
import { functionAdapter } from '../../adapters/function/index.ts';
import { createApp, type AppOptions, type GatewayApp } from '../app.ts';
import { createLogger } from '../base/logger.ts';
import { parseConfig } from '../config/load.ts';
import type { GatewayConfig, GatewayConfigInput } from '../config/schema.ts';
import type { Nlgate, NlgateOptions } from './types.ts';
import { mountedEnv, normalizeMount, trimMount, unmountedRequest } from '../edge/mount.ts';

export type { Nlgate, NlgateOptions } from './types.ts';

/** The adapter kinds a library gateway knows: the YAML kinds plus `function`. */
export const libraryAdapters = [...builtinAdapters, functionAdapter];

/** What the server needs besides the library surface (drain, telemetry, the core). */
export interface ComposedNlgate extends Nlgate, Omit<GatewayApp, 'app' | 'close'> {}

const notMounted = (mount: string) =>
  Response.json({ _meta: { response_type: 'failure', version: '0.55' }, error: { code: 'INVALID_QUERY', message: `This gateway answers under ${mount}` } }, { status: 404 });

function executionCtxOf(c: Context): unknown {
  try {
    return c.executionCtx;
  } catch {
    return undefined; // Node has none
  }
}

/** Composes a gateway from a validated config: the surface `createNlgate` returns, plus the server's extras. */
export async function composeNlgate(config: GatewayConfig, opts: AppOptions & { basePath?: string } = {}): Promise<ComposedNlgate> {
  const basePath = normalizeMount(opts.basePath);
  const gw = await createApp(config, { adapters: libraryAdapters, ...opts });
  const inner = gw.app;

  /** Handles a request whose URL still carries `mount`. */
  const handle = (request: Request, env: unknown, mount: string, executionCtx?: unknown): Response | Promise<Response> => {
    if (mount === '') return inner.fetch(request, env, executionCtx as never);
    const below = unmountedRequest(request, mount);
    if (!below) return notMounted(mount);
    return inner.fetch(below, mountedEnv(env, mount), executionCtx as never);
  };
  const fetchHandler = async (request: Request, env?: unknown, executionCtx?: unknown) => handle(request, env, basePath, executionCtx);

  // As a sub-app: one route taking everything; the mount is where the host routed it (hono/route).
  const app = new Hono();
  app.all('*', (c) => {
    const mount = trimMount(routeBasePath(c)) || basePath;
    return handle(c.req.raw, c.env, mount, executionCtxOf(c));
  });

  const listener = getRequestListener(
    (request, env) => {
      // Express and Connect strip the mount from `req.url` and keep it in `req.baseUrl`.
      const baseUrl = (env.incoming as IncomingMessage & { baseUrl?: string }).baseUrl;
      if (typeof baseUrl === 'string' && baseUrl !== '') return inner.fetch(request, mountedEnv(env, trimMount(baseUrl)));
      return handle(request, env, basePath);
    },
    // A library does not replace the host process's global Request and Response.
    { overrideGlobalObjects: false },
  );
  const { app: _inner, close, ...rest } = gw;
  return { ...rest, app, fetch: fetchHandler, nodeHandler: (req, res) => listener(req, res), close };
}

/**
 * Builds a gateway from a config (the same document as the YAML file, validated by the same
 * schemas, failing with the same ConfigError) for use inside another application (docs/library.md).
 */
export async function createNlgate(config: GatewayConfigInput, options: NlgateOptions = {}): Promise<Nlgate> {
  const loaded = parseConfig(config, { adapters: libraryAdapters, source: '(createNlgate config)', ...(options.env ? { env: options.env } : {}), ...(options.baseDir ? { baseDir: options.baseDir } : {}) });
  const gw = await composeNlgate(loaded.config, {
    log: options.logger ?? createLogger(),
    baseDir: loaded.baseDir,
    ...(options.basePath !== undefined ? { basePath: options.basePath } : {}),
  });
  return { app: gw.app, fetch: gw.fetch, nodeHandler: gw.nodeHandler, close: gw.close };
}
