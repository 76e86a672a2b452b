/**
 * A tiny, standalone webtool server (webtools draft 2025-06-30): `GET {base}` and `GET {base}/` serve
 * the latest metadata, `GET {base}/{version}` a given version, `POST {base}` runs an action. Actions
 * are declared with zod; the published JSON Schemas come from `z.toJSONSchema`.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import {
  CUSTOM_ERROR_STATUS,
  errorEnvelope,
  isSemver,
  isWebtoolErrorCode,
  latestVersion,
  okEnvelope,
  parseExecutionRequest,
  WEBTOOL_ERROR_STATUS,
  formatIssues,
  type WebtoolMetadata,
} from '../../src/protocol/webtool/index.ts';
import { WebtoolFailure } from './failure.ts';

/** One action: zod schemas for its request and response, and the function that runs it. */
export interface ActionDefinition<C = any> {
  name: string;
  description: string;
  request: z.ZodType;
  response: z.ZodType;
  run(request: any, config: C): unknown;
}

/** One published version of a webtool. */
export interface WebtoolVersion<C = any> {
  name: string;
  description: string;
  version: string;
  config: z.ZodType<C>;
  defaultConfig: Record<string, unknown>;
  actions: ActionDefinition<C>[];
}

/** The metadata document of one version ("GET {webtoolUrl}/"). */
export function metadataOf(v: WebtoolVersion): WebtoolMetadata {
  return {
    name: v.name,
    description: v.description,
    version: v.version,
    actions: v.actions.map((a) => ({
      name: a.name,
      description: a.description,
      requestSchema: z.toJSONSchema(a.request, { io: 'input' }) as Record<string, unknown>,
      responseSchema: z.toJSONSchema(a.response) as Record<string, unknown>,
    })),
    configSchema: z.toJSONSchema(v.config, { io: 'input' }) as Record<string, unknown>,
    defaultConfig: v.defaultConfig,
  };
}

function fail(c: Context, code: string, message: string, retryAfter?: number): Response {
  const status = isWebtoolErrorCode(code) ? WEBTOOL_ERROR_STATUS[code] : CUSTOM_ERROR_STATUS;
  if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
  return c.json(errorEnvelope(code, message), status as 400);
}

const isJsonType = (ct: string | undefined) => ct === undefined || /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(ct);

/**
 * Serves the versions `versions()` returns (read per request, so a test may change them) under
 * `base` (e.g. `/kitchen`). Errors follow the gateway's decisions for what the draft leaves open.
 */
export function createWebtoolApp(base: string, versions: () => readonly WebtoolVersion[]): Hono {
  const app = new Hono();
  const find = (v?: string) => {
    const all = versions();
    const wanted = v ?? latestVersion(all.map((x) => x.version));
    return all.find((x) => x.version === wanted);
  };
  const latest = (c: Context) => c.json(metadataOf(find()!));
  app.get(base, latest);
  app.get(`${base}/`, latest);
  app.get(`${base}/:version`, (c) => {
    const v = c.req.param('version');
    const found = isSemver(v) ? find(v) : undefined;
    return found ? c.json(metadataOf(found)) : fail(c, 'WEBTOOL_NOT_FOUND', `Version "${v}" does not exist`);
  });
  const execute = async (c: Context) => {
    if (!isJsonType(c.req.header('content-type'))) {
      return c.json(errorEnvelope('SCHEMA_ERROR', 'Send the request as application/json'), 415);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch {
      return fail(c, 'SCHEMA_ERROR', 'The body is not valid JSON');
    }
    const parsed = parseExecutionRequest(raw);
    if (!parsed.ok) return fail(c, 'SCHEMA_ERROR', parsed.message);
    const { version, action: name, config, request } = parsed.value;
    const tool = find(version);
    if (!tool) return fail(c, 'WEBTOOL_NOT_FOUND', `Version "${version}" does not exist`);
    const action = tool.actions.find((a) => a.name === name);
    if (!action) return fail(c, 'SCHEMA_ERROR', `Unknown action "${name}" (actions: ${tool.actions.map((a) => a.name).join(', ')})`);
    const cfg = tool.config.safeParse({ ...tool.defaultConfig, ...config });
    if (!cfg.success) return fail(c, 'CONFIG_ERROR', formatIssues(cfg.error.issues));
    const req = action.request.safeParse(request);
    if (!req.success) return fail(c, 'SCHEMA_ERROR', formatIssues(req.error.issues));
    try {
      return c.json(okEnvelope(await action.run(req.data, cfg.data)));
    } catch (err) {
      if (err instanceof WebtoolFailure) return fail(c, err.code, err.message, err.retryAfter);
      return fail(c, 'INTERNAL_ERROR', 'The webtool failed'); // never leak internals
    }
  };
  app.post(base, execute);
  app.post(`${base}/`, execute);
  app.notFound((c) => fail(c, 'WEBTOOL_NOT_FOUND', 'No webtool here'));
  app.onError((_err, c) => fail(c, 'INTERNAL_ERROR', 'The webtool failed'));
  return app;
}
