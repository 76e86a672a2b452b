import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { onBindingError } from '../mount.ts';
import type { GatewayError } from '../../base/errors.ts';
import { reportError } from '../report.ts';
import type { Gateway } from '../../core/gateway-types.ts';
import { callerOf } from '../credentials.ts';
import type { Binding, BindingContext } from '../types.ts';
import { parseLegacyAsk, toAskRequest, wantsLegacyStream } from './params.ts';
import { failureFrame, objectReply, type FrameContext } from './render.ts';
import { renderLegacySse } from './stream.ts';

/** A refused request in the legacy shape: one `error` message, with the status from ERROR_TABLE. */
function renderLegacyError(c: Context, err: GatewayError): Response {
  const frame = failureFrame(err.code, err.message, { conversationId: '', site: '' });
  delete frame.conversation_id;
  return c.json(frame, err.mapping.http as ContentfulStatusCode);
}

/** The sites to list: the agent's (or every agent's) `describe().sites`, or the agent's own name. */
async function listSites(gateway: Gateway, agent: string | undefined): Promise<string[]> {
  const names = agent !== undefined ? [gateway.resolveAgent(undefined, agent)] : gateway.listAgents().map((a) => a.name);
  const lists = await Promise.all(
    names.map(async (name) => (await gateway.describeAgent(name).catch(() => undefined))?.sites ?? [name]),
  );
  return [...new Set(lists.flat())];
}

/**
 * The older NLWeb REST API for old clients (specs/nlweb-legacy-rest-api.md, interop.md): `GET /ask`
 * with a query string and `GET /sites`, answered in the late-2025 wire format whatever protocol the
 * agent behind speaks. `POST /ask` belongs to the v0.55 binding.
 */
function routes({ gateway }: BindingContext): Hono {
  const app = new Hono();
  onBindingError(app, (err, c) => renderLegacyError(c, reportError(gateway.log, c, err, 'legacy binding')));

  app.get('/ask', async (c) => {
    const params = parseLegacyAsk(c.req.queries());
    const streaming = wantsLegacyStream(params);
    const request = toAskRequest(params, streaming);
    const agent = c.req.param('agent');
    const base = { ...(agent !== undefined ? { agent } : {}), ...callerOf(c) };
    const site = agent ?? gateway.resolveAgent(request, undefined);
    c.set('queryText', request.query.text);
    c.set('agent', site);
    if (streaming) {
      const abort = new AbortController();
      const live = await gateway.askStream(request, { ...base, signal: abort.signal });
      const fc: FrameContext = { conversationId: live.conversationId, site: live.agent, ...(params.query_id ? { queryId: params.query_id } : {}) };
      return renderLegacySse(c, live, params.query, fc, abort);
    }
    // Old clients cannot await a promise: the answer is waited for (bounded by the agent's timeout).
    const response = await gateway.ask(request, { ...base, signal: c.req.raw.signal, allowPromise: false });
    const conversationId = (response._meta.session_context?.conversation_id as string | undefined) ?? '';
    return c.json(objectReply(response, params.query, { conversationId, site, ...(params.query_id ? { queryId: params.query_id } : {}) }));
  });

  app.get('/sites', async (c) => c.json({ 'message-type': 'sites', sites: await listSites(gateway, c.req.param('agent')) }));
  return app;
}

/** The legacy REST API: `GET /ask` and `GET /sites`, no request bodies. */
export const nlwebLegacyHttpBinding: Binding = {
  name: 'nlweb-legacy-http',
  perAgent: true,
  routes,
  edge: {
    claims: (method, path) => (method === 'GET' || method === 'HEAD') && (path === '/ask' || path === '/sites'),
    jsonBody: () => false,
    renderError: renderLegacyError,
  },
};
