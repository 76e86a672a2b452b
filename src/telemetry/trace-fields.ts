/**
 * Where a client can put its W3C trace context inside a protocol message, besides the HTTP headers
 * (issue 13 "Traces"; docs/operations.md):
 * - MCP: `params._meta.traceparent` / `params._meta.tracestate` (OTel MCP semantic conventions);
 * - NLIP (ECMA-430): a `token` submessage with subformat `traceparent` (and one with `tracestate`),
 *   the message's own place for out-of-band tokens (5.3; like the `conversation` and `authorization` tokens).
 */

/** The MCP facts a server span carries (OTel MCP conventions) and the trace fields from `_meta`. */
export interface McpFacts {
  method?: string;
  /** `params.name` of `tools/call` and `prompts/get`; bounded by the published tools. */
  target?: string;
  requestId?: string;
  fields: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function traceFields(source: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  // Bounded: a traceparent is 55 characters; a tracestate at most 32 members of ~256.
  if (typeof source.traceparent === 'string' && source.traceparent.length <= 128) out.traceparent = source.traceparent;
  if (typeof source.tracestate === 'string' && source.tracestate.length <= 512) out.tracestate = source.tracestate;
  return out;
}

/** Reads an MCP JSON-RPC message (the first of a batch): method, tool name, id and `_meta` trace fields. */
export function mcpFacts(body: unknown): McpFacts {
  const msg = Array.isArray(body) ? body[0] : body;
  if (!isObject(msg)) return { fields: {} };
  const params = isObject(msg.params) ? msg.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  return {
    ...(typeof msg.method === 'string' && msg.method.length <= 64 ? { method: msg.method } : {}),
    ...(typeof params.name === 'string' && params.name.length <= 128 ? { target: params.name } : {}),
    ...(typeof msg.id === 'string' || typeof msg.id === 'number' ? { requestId: String(msg.id).slice(0, 64) } : {}),
    fields: traceFields(meta),
  };
}

/** Reads the trace fields of an NLIP message: `token` submessages with subformat `traceparent`/`tracestate`. */
export function nlipTraceFields(body: unknown): Record<string, string> {
  if (!isObject(body)) return {};
  const parts = [body, ...(Array.isArray(body.submessages) ? body.submessages : [])];
  const found: Record<string, unknown> = {};
  for (const part of parts) {
    if (!isObject(part) || part.format !== 'token' || typeof part.subformat !== 'string') continue;
    const key = part.subformat.toLowerCase();
    if ((key === 'traceparent' || key === 'tracestate') && found[key] === undefined) found[key] = part.content;
  }
  return traceFields(found);
}
