import { Hono, type Context } from 'hono';
import { onBindingError } from '../mount.ts';
import { bodyLimit } from '../body-limit.ts';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { reportError } from '../report.ts';
import { parseNlipText, toWire } from '../../protocol/nlip/index.ts';
import type { Binding, BindingContext } from '../types.ts';
import { callerOf } from '../credentials.ts';
import { bearerChallenge } from '../../edge/refusal.ts';
import { answerMessage } from './answer.ts';
import { plainNlipMessage } from './plain-message.ts';
import { readCredentials } from './request.ts';
import { renderRejection } from './reply.ts';
import { handleUpload, MULTIPART_OVERHEAD, UPLOAD_MAX_BYTES, uploadPath } from './upload.ts';

/** The mount prefix of a request: `''` at the root, `/agents/{name}` under an agent. */
function mountPrefix(c: Context): string {
  const agent = c.req.param('agent');
  return agent !== undefined ? `/agents/${encodeURIComponent(agent)}` : '';
}

/**
 * The NLIP HTTP binding (ECMA-430 + its HTTP binding, interop.md "NLIP"): `POST /nlip` and
 * `POST /nlip/` take a message and answer with one; `POST /nlip/upload/` takes large content (6.4).
 * Only a body that is not JSON or not an NLIP message gets a 4xx; everything else is HTTP 200 with
 * an NLIP reply, because the reference client raises on any other status.
 */
function routes({ gateway, settings }: BindingContext): Hono {
  const app = new Hono();
  const reject = (c: Context, status: 400 | 405 | 413 | 500, text: string, code: string) => c.json(toWire(renderRejection(text, code)), status);
  const messageLimit = bodyLimit({
    maxSize: settings.bodyLimitBytes,
    onError: (c) => reject(c, 413, `The message is larger than ${settings.bodyLimitBytes} bytes: upload large content to the upload end-point (6.4).`, 'PAYLOAD_TOO_LARGE'),
  });
  const uploadLimit = bodyLimit({
    maxSize: UPLOAD_MAX_BYTES + MULTIPART_OVERHEAD,
    onError: (c) => reject(c, 413, `The upload is larger than ${UPLOAD_MAX_BYTES} bytes.`, 'PAYLOAD_TOO_LARGE'),
  });
  // Last resort (a bug): still an NLIP body, never a stack trace or an HTML page.
  onBindingError(app, (err, c) => reject(c, 500, reportError(gateway.log, c, err, 'NLIP binding').message, 'INTERNAL_ERROR'));

  const base = (c: Context) => settings.publicBase(c);

  const message = async (c: Context) => {
    const parsed = parseNlipText(await c.req.text(), plainNlipMessage);
    if (!parsed.ok) return reject(c, 400, `Bad request: ${parsed.error}`, 'INVALID_REQUEST');
    const agent = c.req.param('agent');
    const caller = callerOf(c);
    const { requestId } = caller;
    let { principal } = caller;
    const authorization = caller.credentials?.authorization;
    // 6.5: a token submessage is a credential like the header (which the edge verified already).
    const token = authorization === undefined ? readCredentials(undefined, parsed.message)?.authorization : undefined;
    if (token !== undefined && settings.identity.enabled) {
      const verdict = await settings.identity.verify(token);
      if (!verdict.ok) {
        return c.json(toWire(renderRejection(verdict.reason, 'UNAUTHORIZED')), 401, { 'WWW-Authenticate': bearerChallenge('invalid_token', verdict.reason) });
      }
      principal = verdict.principal;
      c.set('principal', principal);
    }
    const reply = await answerMessage(
      {
        gateway,
        signal: c.req.raw.signal,
        // Built only for a control message asking for it (6.4): the public base parses the request URL.
        uploadUrl: () => `${base(c)}${uploadPath(mountPrefix(c))}`,
        ...(agent !== undefined ? { agent } : {}),
        ...(authorization !== undefined ? { authorization } : {}),
        caller: { principal, requestId },
      },
      parsed,
    );
    return c.json(toWire(reply));
  };
  const upload = (c: Context) =>
    handleUpload(c, gateway.store, `${base(c)}${uploadPath(mountPrefix(c))}`, { owner: callerOf(c).principal, limits: settings.limits });

  app.post('/nlip', messageLimit, message);
  app.post('/nlip/', messageLimit, message);
  app.post('/nlip/upload', uploadLimit, upload);
  app.post('/nlip/upload/', uploadLimit, upload);
  app.on(['GET', 'PUT', 'DELETE', 'PATCH'], ['/nlip', '/nlip/', '/nlip/upload', '/nlip/upload/'], (c) => {
    c.header('Allow', 'POST');
    return reject(c, 405, 'Use POST with an NLIP message (a JSON object).', 'INVALID_REQUEST');
  });
  return app;
}

const isMessagePath = (path: string) => path === '/nlip' || path === '/nlip/';

/** NLIP: a message is JSON (ECMA-430 HTTP binding); an upload is multipart, checked by its own route. */
export const nlipHttpBinding: Binding = {
  name: 'nlip-http',
  perAgent: true,
  routes,
  edge: {
    claims: (_method, path) => isMessagePath(path) || path === '/nlip/upload' || path === '/nlip/upload/',
    jsonBody: (method, path) => method === 'POST' && isMessagePath(path),
    // A transport-level refusal: an NLIP error message with the HTTP status of its code.
    renderError: (c, err) => c.json(toWire(renderRejection(err.message, err.code)), err.mapping.http as ContentfulStatusCode),
  },
};
