import { onBindingError } from '../mount.ts';
import { jsonTooDeep } from '../../protocol/json-depth.ts';
import { Hono, type Context } from 'hono';
import { bodyLimit } from '../body-limit.ts';
import { reportError } from '../report.ts';
import type { Gateway } from '../../core/gateway-types.ts';
import { isSemver, parseExecutionRequest } from '../../protocol/webtool/index.ts';
import { callerOf } from '../credentials.ts';
import type { Binding, BindingContext } from '../types.ts';
import { execute } from './execute.ts';
import { agentMetadata } from './metadata.ts';
import { sendError, sendGatewayError } from './render.ts';
import { requestHeader } from '../../base/request-headers.ts';

const isJsonType = (ct: string) => /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(ct.trim());

function knownAgent(gateway: Gateway, name: string): boolean {
  return gateway.listAgents().some((a) => a.name === name);
}

/**
 * Reads the body as JSON (webtools "Content Types"). The edge has already refused bodies not
 * declared as JSON (415, so a cross-site "simple" POST cannot run an action); a declared JSON body
 * that does not parse is a SCHEMA_ERROR (400).
 */
async function readJson(c: Context): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const text = await c.req.text();
  const tooDeep = jsonTooDeep(text);
  if (tooDeep) return { ok: false, response: sendError(c, 'SCHEMA_ERROR', tooDeep) };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const declared = requestHeader(c.req.raw, 'content-type');
    if (declared === undefined || !isJsonType(declared)) {
      return { ok: false, response: sendError(c, 'SCHEMA_ERROR', 'The body must be JSON (Content-Type: application/json)', 415) };
    }
    return { ok: false, response: sendError(c, 'SCHEMA_ERROR', 'The body is not valid JSON') };
  }
}

/**
 * The webtool binding (webtools draft 2025-06-30): every agent is a webtool at `/webtools/{agent}`.
 * `GET` = latest metadata, `GET /{version}` = that version, `POST` = execution. Every response is
 * JSON with a webtool envelope, errors included.
 */
function routes({ gateway, settings }: BindingContext): Hono {
  const app = new Hono();
  onBindingError(app, (err, c) => sendGatewayError(c, reportError(gateway.log, c, err, 'webtool binding')));
  const limit = bodyLimit({
    maxSize: settings.bodyLimitBytes,
    onError: (c) => sendError(c, 'SCHEMA_ERROR', `The request body is larger than ${settings.bodyLimitBytes} bytes`, 413),
  });
  const notFound = (c: Context, agent: string) => sendError(c, 'WEBTOOL_NOT_FOUND', `No webtool is named "${agent}"`);

  /** A listing of the webtools (a gateway extension: the draft defines one webtool per URL). */
  app.get('/webtools', (c) => {
    const base = settings.publicBase(c);
    const webtools = gateway.listAgents().map((a) => ({ name: a.name, description: a.description, url: `${base}/webtools/${encodeURIComponent(a.name)}` }));
    return c.json({ webtools });
  });

  /** "GET {webtoolUrl}/": the latest metadata. */
  const latest = async (c: Context) => {
    const agent = c.req.param('agent')!;
    if (!knownAgent(gateway, agent)) return notFound(c, agent);
    return c.json(await agentMetadata(gateway, agent));
  };
  app.get('/webtools/:agent', latest);
  app.get('/webtools/:agent/', latest);

  /** "GET {webtoolUrl}/{version}": only a semantic version routes here; an unknown one is 404. */
  app.get('/webtools/:agent/:version', async (c) => {
    const agent = c.req.param('agent');
    const version = c.req.param('version');
    if (!knownAgent(gateway, agent)) return notFound(c, agent);
    if (!isSemver(version)) return sendError(c, 'WEBTOOL_NOT_FOUND', `No such path: "${version}" is not a semantic version`);
    const metadata = await agentMetadata(gateway, agent);
    if (metadata.version !== version) {
      return sendError(c, 'WEBTOOL_NOT_FOUND', `Webtool "${agent}" has no version "${version}" (current: ${metadata.version})`);
    }
    return c.json(metadata);
  });

  /** "POST {webtoolUrl}/": execution. */
  const run = async (c: Context) => {
    const agent = c.req.param('agent')!;
    if (!knownAgent(gateway, agent)) return notFound(c, agent);
    const body = await readJson(c);
    if (!body.ok) return body.response;
    const parsed = parseExecutionRequest(body.value);
    if (!parsed.ok) return sendError(c, 'SCHEMA_ERROR', parsed.message);
    const opts = { agent, signal: c.req.raw.signal, ...callerOf(c) };
    return execute(c, gateway, { agent, body: parsed.value, opts });
  };
  app.post('/webtools/:agent', limit, run);
  app.post('/webtools/:agent/', limit, run);

  app.on(['PUT', 'PATCH', 'DELETE'], ['/webtools/:agent', '/webtools/:agent/'], (c) =>
    sendError(c, 'METHOD_NOT_ALLOWED', 'A webtool answers GET (metadata) and POST (execution)', 405),
  );
  app.all('/webtools/*', (c) => sendError(c, 'WEBTOOL_NOT_FOUND', `No webtool route for ${c.req.method} ${c.req.path}`));
  return app;
}

/** Every configured agent as a webtool at `/webtools/{agent}` (mounted once, at the root). */
export const webtoolHttpBinding: Binding = {
  name: 'webtool-http',
  perAgent: false,
  routes,
  edge: {
    claims: (_method, path) => path === '/webtools' || path.startsWith('/webtools/'),
    // "POST {webtoolUrl}/": execution takes JSON ("Content Types").
    jsonBody: (method, path) => method === 'POST' && /^\/webtools\/[^/]+\/?$/.test(path),
    renderError: sendGatewayError,
  },
};
