import type { CallContext } from '../../src/core/agent.ts';
import type { AskRequest, AwaitRequest } from '../../src/protocol/nlweb/index.ts';
import type { NlwebAdapterConfig } from './config.ts';

/** The parts of the adapter config that shape an upstream request. */
export type RequestSettings = Pick<NlwebAdapterConfig, 'streaming' | 'headers' | 'version'>;

/** `meta.version` as the upstream expects it; v0.54 servers read `api_version` (interop.md), so send both. */
function versionFields(version: RequestSettings['version']): Record<string, string> {
  return version === '0.54' ? { version, api_version: version } : { version };
}

/**
 * Builds the upstream `/ask` body (spec 3): the client's query, context, prefer and meta, with
 * the conversation the core keeps merged in. `meta.session_context` carries the upstream's own
 * session back (3.4); `context.prev` gets the earlier queries when the client sent none (3.2).
 */
export function buildAskBody(request: AskRequest, ctx: CallContext, settings: RequestSettings): Record<string, unknown> {
  const conversation = ctx.conversation;
  const body: Record<string, unknown> = { ...request, query: { ...request.query } };

  const context = { ...(request.context ?? {}) };
  if (context.prev === undefined && conversation && conversation.prev.length > 0) context.prev = [...conversation.prev];
  if (Object.keys(context).length > 0) body.context = context;
  else delete body.context;

  // The gateway's own leg to the upstream decides streaming; the client's wish applies to its own leg.
  body.prefer = { ...(request.prefer ?? {}), streaming: settings.streaming };

  const meta: Record<string, unknown> = { ...(request.meta ?? {}) };
  delete meta.api_version;
  Object.assign(meta, versionFields(settings.version));
  if (conversation) {
    // The client's session_context belongs to the gateway's conversation (the core resolved it);
    // the upstream gets back only what it issued itself.
    delete meta.session_context;
    if (conversation.upstreamSession) meta.session_context = conversation.upstreamSession;
  }
  body.meta = meta;
  return body;
}

/** Builds the upstream `/await` body (spec 4.2). */
export function buildAwaitBody(token: string, action: AwaitRequest['action'], settings: RequestSettings): Record<string, unknown> {
  return { promise_token: token, action, meta: versionFields(settings.version) };
}

/** The fixed part of the request headers, per settings object (computed once per agent). */
const baseHeaders = new WeakMap<RequestSettings, { stream: Record<string, string>; json: Record<string, string> }>();

function fixedHeaders(settings: RequestSettings): { stream: Record<string, string>; json: Record<string, string> } {
  let fixed = baseHeaders.get(settings);
  if (fixed === undefined) {
    const configured: Record<string, string> = {};
    for (const [k, v] of Object.entries(settings.headers ?? {})) configured[k.toLowerCase()] = v;
    const json = { ...configured, 'content-type': 'application/json' };
    fixed = { stream: { ...json, accept: 'text/event-stream' }, json: { ...json, accept: 'application/json' } };
    baseHeaders.set(settings, fixed);
  }
  return fixed;
}

/**
 * Request headers (spec 7.2): JSON in, SSE or JSON out, the configured headers, and `Authorization`
 * from `ctx.credentials` only (the core sets it only when the agent forwards credentials).
 * Nothing else the client sent reaches the upstream. A fresh object each call (the upstream
 * client and its diagnostics subscribers may add to it).
 */
export function buildHeaders(settings: RequestSettings, ctx: CallContext, wantStream: boolean): Record<string, string> {
  const fixed = fixedHeaders(settings);
  const headers = { ...(wantStream ? fixed.stream : fixed.json) };
  const authorization = ctx.credentials?.authorization;
  if (authorization) headers.authorization = authorization;
  return headers;
}
