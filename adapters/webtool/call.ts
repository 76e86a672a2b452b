/**
 * One execution against the upstream webtool ("POST {webtoolUrl}/"): validate, post, read the
 * envelope, validate `data`. Upstream errors become GatewayErrors without upstream internals.
 */
import type { ToolResult } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { Logger } from '../../src/base/logger.ts';
import type { UpstreamClient, UpstreamResponse } from '../../src/core/upstream/index.ts';
import { CUSTOM_ERROR_CODE, parseEnvelope, type ExecutionRequest, type WebtoolAction } from '../../src/protocol/webtool/index.ts';
import type { Snapshot } from './pin.ts';

export interface CallInput {
  http: UpstreamClient;
  requestId?: string;
  agent: string;
  url: string;
  snapshot: Snapshot;
  action: WebtoolAction;
  request: Record<string, unknown>;
  /** The agent's configured `config` (never a client's). */
  config: Record<string, unknown>;
  headers: Record<string, string>;
  sessionId?: string;
  signal: AbortSignal;
  timeoutMs?: number;
  log: Logger;
}

/** Longest custom error message passed on from an upstream. */
const MAX_MESSAGE = 300;

function retryAfterOf(res: UpstreamResponse): number | undefined {
  const v = res.headers.get('retry-after');
  if (v === null) return undefined;
  const seconds = /^\d+$/.test(v.trim()) ? Number(v) : Math.ceil((Date.parse(v) - Date.now()) / 1000);
  return Number.isFinite(seconds) ? Math.max(1, Math.min(seconds, 3600)) : undefined;
}

/** Validates request and config (ajv) before the call: SCHEMA_ERROR and CONFIG_ERROR ("Error Handling"). */
function checkInput(input: CallInput, merged: Record<string, unknown>): void {
  const { snapshot, action, agent } = input;
  const bad = snapshot.checks(action).request(input.request);
  if (bad) throw new GatewayError('SCHEMA_ERROR', `Action "${action.name}" of agent "${agent}": ${bad}`, { details: { action: action.name } });
  const badConfig = snapshot.config()(merged);
  if (badConfig) {
    // Config comes from the gateway's own settings: name the problem, never the values (credentials).
    throw new GatewayError('CONFIG_ERROR', `Agent "${agent}" is configured with settings its webtool rejects: ${badConfig}`);
  }
}

/** Maps an upstream error envelope: standard codes to gateway codes, custom codes to a tool failure. */
function upstreamFailure(input: CallInput, code: string, message: string, res: UpstreamResponse): ToolResult {
  const { agent, snapshot } = input;
  switch (code) {
    case 'SCHEMA_ERROR':
      throw new GatewayError('SCHEMA_ERROR', `Agent "${agent}" rejected the request for action "${input.action.name}"`);
    case 'CONFIG_ERROR':
      throw new GatewayError('CONFIG_ERROR', `Agent "${agent}" rejected the configuration the gateway holds for it`);
    case 'RATE_LIMIT': {
      const retryAfter = retryAfterOf(res);
      throw new GatewayError('RATE_LIMITED', `Agent "${agent}" is rate limiting the gateway`, retryAfter ? { retryAfter } : {});
    }
    case 'WEBTOOL_NOT_FOUND':
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" no longer offers version ${snapshot.metadata.version}`);
    case 'INTERNAL_ERROR':
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" failed (HTTP ${res.status})`);
  }
  if (!CUSTOM_ERROR_CODE.test(code)) throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" failed (HTTP ${res.status})`);
  // A domain error ("Webtools MAY define their own custom error codes"): meant for the caller.
  const text = message.slice(0, MAX_MESSAGE);
  return { isError: true, text, structured: { code, message: text } };
}

/** Runs one action: the merged config is `{...defaultConfig, ...config}` (interop.md). Throws GatewayError. */
export async function callAction(input: CallInput): Promise<ToolResult> {
  const { agent, snapshot, action } = input;
  const merged = { ...snapshot.metadata.defaultConfig, ...input.config };
  checkInput(input, merged);
  const body: ExecutionRequest = {
    ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    version: snapshot.metadata.version,
    action: action.name,
    config: merged,
    request: input.request,
  };
  const res = await input.http.request({
    url: input.url,
    method: 'POST',
    headers: { ...input.headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal: input.signal,
    ...(input.requestId ? { requestId: input.requestId } : {}),
    ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
  });
  // Over the size cap, a broken connection: the call fails (UPSTREAM_ERROR); a body that is not JSON is judged below.
  const text = await res.text();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const envelope = parseEnvelope(raw);
  if (!envelope) {
    if (res.status === 429) {
      const retryAfter = retryAfterOf(res);
      throw new GatewayError('RATE_LIMITED', `Agent "${agent}" is rate limiting the gateway`, retryAfter ? { retryAfter } : {});
    }
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered HTTP ${res.status} without a webtool envelope`);
  }
  if (envelope.status === 'error') return upstreamFailure(input, envelope.error.code, envelope.error.message, res);
  const bad = snapshot.checks(action).response(envelope.data);
  if (bad) {
    input.log.warn({ action: action.name, problem: bad }, 'webtool data does not match its responseSchema');
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered action "${action.name}" with data that does not match its responseSchema`);
  }
  return { structured: envelope.data, text: JSON.stringify(envelope.data) };
}
