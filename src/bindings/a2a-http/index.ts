import { Hono, type Context } from 'hono';
import { onBindingError } from '../mount.ts';
import { bodyLimit } from '../body-limit.ts';
import { toGatewayError } from '../../base/errors.ts';
import { loadOnce } from '../../base/load-once.ts';
import type { Binding, BindingContext } from '../types.ts';
import { callerOf } from '../credentials.ts';
import { a2aEdgeHooks } from './edge.ts';
import type { HandlerDeps } from './handler.ts';

/** Default lifetime of a task record when the config gives no promise TTL. */
const DEFAULT_TASK_TTL_MS = 3_600_000;

/**
 * The A2A 1.0 binding (docs/a2a.md): every agent is an A2A agent with base URL `/a2a/{agent}`:
 * its card at `{base}/.well-known/agent-card.json`, JSON-RPC at `{base}`, HTTP+JSON at `{base}/rest`.
 * The gateway-level card (`/.well-known/agent-card.json`) is the default agent's.
 */
function routes({ gateway, settings }: BindingContext): Hono {
  const app = new Hono();
  // The A2A SDK (~15 MiB and ~100 ms at start, issue 23) loads with the first A2A request, and with
  // it the binding's task records and local streams: a deployment no A2A client calls never pays.
  const runtime = loadOnce(async () => {
    const rt = await import('./runtime.ts');
    return { rt, tasks: new rt.TaskRecords(gateway.store, settings.promiseTtlMs ?? DEFAULT_TASK_TTL_MS), streams: new rt.LocalStreams(gateway.store) };
  });
  // The edge (src/edge) adds `publicBase` (never an unchecked Host) and `identity` (configured credentials) to the settings.
  const edge = settings as { publicBase?: (c: Context) => string; identity?: { enabled?: boolean } };
  const baseUrl = (c: Context) => (edge.publicBase?.(c) ?? settings.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
  const bearer = edge.identity?.enabled === true;

  /** The agent named by the path, or null (an unknown agent is a plain 404 on every A2A route). */
  const agentOf = (c: Context): string | null => {
    const name = c.req.param('agent');
    return name !== undefined && gateway.listAgents().some((a) => a.name === name) ? name : null;
  };
  type Runtime = NonNullable<ReturnType<typeof runtime.now>>;
  /** The request's handler, built on the loaded runtime. */
  const handlerOn = ({ rt, tasks, streams }: Runtime, c: Context, agent: string) => {
    const deps: HandlerDeps = { gateway, agent, tasks, streams, card: () => rt.buildAgentCard(gateway, agent, { baseUrl: baseUrl(c), bearer }) };
    const { principal, requestId, credentials } = callerOf(c);
    return { rt, handler: new rt.GatewayRequestHandler(deps, { principal, requestId, signal: c.req.raw.signal, ...(credentials ? { credentials } : {}) }) };
  };
  /**
   * Serves the request with its handler: at once when the runtime is loaded (every request after
   * the first: no await, issue 25), else once it is.
   */
  const withHandler = (c: Context, agent: string, serve: (made: ReturnType<typeof handlerOn>) => Response | Promise<Response>): Response | Promise<Response> => {
    const loaded = runtime.now();
    return loaded ? serve(handlerOn(loaded, c, agent)) : runtime().then((rt) => serve(handlerOn(rt, c, agent)));
  };
  const notFound = (c: Context) => c.json({ error: { code: 404, status: 'NOT_FOUND', message: `No agent named "${c.req.param('agent')}"` } }, 404);
  const card = async (c: Context, agent: string) => {
    const { rt } = await runtime();
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(rt.AgentCard.toJSON(await rt.buildAgentCard(gateway, agent, { baseUrl: baseUrl(c), bearer })));
  };
  const jsonRpc = (c: Context, agent: string) => withHandler(c, agent, ({ rt, handler }) => rt.serveJsonRpc(c, handler));
  const limit = bodyLimit({
    maxSize: settings.bodyLimitBytes,
    onError: (c) => c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `The request is larger than ${settings.bodyLimitBytes} bytes` } }, 413),
  });

  // Last resort (a bug): still an A2A-shaped body, never a stack trace.
  onBindingError(app, (err, c) => {
    gateway.log.error({ err: String(err), requestId: c.get('requestId') }, 'A2A binding error');
    return c.json({ error: { code: 500, status: 'INTERNAL', message: toGatewayError(err).message } }, 500);
  });

  app.get('/.well-known/agent-card.json', (c) => card(c, gateway.resolveAgent(undefined)));
  app.get('/a2a/:agent/.well-known/agent-card.json', (c) => {
    const agent = agentOf(c);
    return agent ? card(c, agent) : notFound(c);
  });
  // `{base}/` too: the SDK resolves the card relative to the base URL, so clients are told to end it with a slash.
  app.post('/a2a/:agent', limit, (c) => {
    const agent = agentOf(c);
    return agent ? jsonRpc(c, agent) : notFound(c);
  });
  app.post('/a2a/:agent/', limit, (c) => {
    const agent = agentOf(c);
    return agent ? jsonRpc(c, agent) : notFound(c);
  });
  app.on(['GET', 'POST', 'DELETE'], '/a2a/:agent/rest/*', limit, async (c) => {
    const agent = agentOf(c);
    if (!agent) return notFound(c);
    const prefix = `/a2a/${c.req.param('agent')}/rest`;
    const path = decodeURI(c.req.path);
    return withHandler(c, agent, ({ rt, handler }) => rt.serveRest(c, handler, path.startsWith(prefix) ? path.slice(prefix.length) : c.req.path));
  });
  return app;
}

/** The binding; `edge` tells the edge (src/edge) which requests are A2A's and how to refuse them. */
const binding = { name: 'a2a-http', perAgent: false, routes, edge: a2aEdgeHooks };
export const a2aHttpBinding: Binding = binding;
