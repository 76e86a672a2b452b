import { Hono, type Context } from 'hono';
import { onBindingError } from '../mount.ts';
import { bodyLimit } from '../body-limit.ts';
import { AskRequestSchema, AwaitRequestSchema, requestedWireVersion } from '../../protocol/nlweb/index.ts';
import { GatewayError } from '../../base/errors.ts';
import { reportError } from '../report.ts';
import type { Binding, BindingContext } from '../types.ts';
import { actionDecorator, decorateResponse } from './actions.ts';
import { callerOf } from '../credentials.ts';
import { parseJsonObject, validateBody, wantsStream } from './parse.ts';
import { renderNlwebError, wireFor, type NlwebWire } from './render/index.ts';

const ASK = 'NLWeb ask request (v0.55 section 3): {"query":{"text":"..."}}';
const AWAIT = 'NLWeb await request (v0.55 section 4.2): {"promise_token":"...","action":"checkin"}';

/** The wire chosen for this request (set once its body is read), so a later refusal uses it too. */
const wires = new WeakMap<Request, NlwebWire>();

/** Reads the body and picks the client's wire generation from what it declares (v0.54 or v0.55). */
function readRequest(c: Context, what: string): Promise<{ raw: Record<string, unknown>; wire: NlwebWire }> {
  return c.req.text().then((text) => {
    const raw = parseJsonObject(text, what);
    const wire = wireFor(requestedWireVersion(raw));
    wires.set(c.req.raw, wire);
    return { raw, wire };
  });
}

/** Section 7: the NLWeb HTTP binding, `POST /ask` and `POST /await` (also under `/agents/:agent`). */
function routes({ gateway, settings }: BindingContext): Hono {
  const app = new Hono();
  const limit = bodyLimit({
    maxSize: settings.bodyLimitBytes,
    onError: (c) => renderNlwebError(c, new GatewayError('PAYLOAD_TOO_LARGE', `The request body is larger than ${settings.bodyLimitBytes} bytes`)),
  });
  // Errors are answered here, in NLWeb's own shape (the client's generation once known), so a nested
  // app's errors never fall through to HTML; internal ones are logged with the request id.
  onBindingError(app, (err, c) => (wires.get(c.req.raw) ?? wireFor('0.55')).error(c, reportError(gateway.log, c, err, 'NLWeb binding')));

  app.post('/ask', limit, async (c) => {
    const { raw, wire } = await readRequest(c, ASK);
    const request = validateBody(raw, AskRequestSchema, ASK);
    const agent = c.req.param('agent');
    const base = { ...(agent !== undefined ? { agent } : {}), ...callerOf(c) };
    const format = request.prefer?.response_format;
    c.set('queryText', request.query.text);
    if (wantsStream(c, request.prefer?.streaming)) {
      const abort = new AbortController();
      const live = await gateway.askStream(request, { ...base, signal: abort.signal });
      c.set('agent', live.agent);
      const decorate = await actionDecorator(c, gateway, live.agent, settings);
      return wire.stream(c, live, { format, abort, decorate });
    }
    const response = await gateway.ask(request, { ...base, signal: c.req.raw.signal });
    const resolved = gateway.resolveAgent(request, agent);
    c.set('agent', resolved);
    const decorate = await actionDecorator(c, gateway, resolved, settings);
    return wire.json(c, decorateResponse(response, decorate), format);
  });

  app.post('/await', limit, async (c: Context) => {
    const { raw, wire } = await readRequest(c, AWAIT);
    const request = validateBody(raw, AwaitRequestSchema, AWAIT);
    const response = await gateway.await(request, callerOf(c));
    return wire.json(c, response, undefined);
  });

  // 7.1 names POST only: other methods get a clear failure instead of a bare 404 (GET /ask belongs to
  // the legacy binding, which serves the older REST clients).
  app.on(['PUT', 'DELETE', 'PATCH'], ['/ask', '/await'], (c) =>
    c.json({ _meta: { response_type: 'failure', version: '0.55' }, error: { code: 'INVALID_QUERY', message: 'Use POST with a JSON body' } }, 405, { Allow: 'POST' }),
  );
  return app;
}

const isNlwebPath = (path: string) => path === '/ask' || path === '/await';

/** NLWeb 7.1: `/ask` and `/await` take JSON bodies; `GET /ask` is the legacy binding's. */
export const nlwebHttpBinding: Binding = {
  name: 'nlweb-http',
  perAgent: true,
  routes,
  edge: {
    claims: (method, path) => isNlwebPath(path) && method !== 'GET' && method !== 'HEAD',
    jsonBody: (method, path) => method === 'POST' && isNlwebPath(path),
    renderError: (c, err) => renderNlwebError(c, err),
  },
};
