/**
 * One API call: send the built request through the upstream policy, then read the reply as a tool
 * result. A 2xx reply is the result (JSON checked against the operation's response schema); a
 * client error (400, 404, 409, 422, ...) is a tool failure the caller may act on; the API refusing
 * the gateway's own credentials, rate limiting it or failing is a GatewayError.
 */
import type { ToolResult } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { Logger } from '../../src/base/logger.ts';
import type { UpstreamClient, UpstreamResponse } from '../../src/core/upstream/index.ts';
import type { SchemaCheck } from '../../src/protocol/webtool/index.ts';
import type { HttpCall } from './request.ts';

/** Longest part of an API's error reply passed on to the caller. */
const MAX_MESSAGE = 300;

export interface SendInput {
  http: UpstreamClient;
  agent: string;
  operation: string;
  call: HttpCall;
  /** Checks a 2xx JSON reply (the operation's response schema), when it declares one. */
  checkReply?: SchemaCheck;
  signal: AbortSignal;
  requestId?: string;
  timeoutMs?: number;
  log: Logger;
}

function retryAfterOf(res: UpstreamResponse): number | undefined {
  const v = res.headers.get('retry-after');
  if (v === null) return undefined;
  const seconds = /^\d+$/.test(v.trim()) ? Number(v) : Math.ceil((Date.parse(v) - Date.now()) / 1000);
  return Number.isFinite(seconds) ? Math.max(1, Math.min(seconds, 3600)) : undefined;
}

function isJson(res: UpstreamResponse): boolean {
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/** The message of an error reply: its `message`/`error`/`detail`/`title` when JSON, else its text; short. */
export function errorMessage(text: string): string {
  let message = text;
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const found = ['message', 'error', 'detail', 'title'].map((k) => o[k]).find((x): x is string => typeof x === 'string');
      if (found) message = found;
    }
  } catch {
    // not JSON: the text itself
  }
  // eslint-disable-next-line no-control-regex
  return message.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, MAX_MESSAGE);
}

/** Sends the call and reads the reply; throws GatewayError for what is not the caller's to handle. */
export async function send(input: SendInput): Promise<ToolResult> {
  const { agent, operation, call } = input;
  const res = await input.http.request({
    url: call.url,
    method: call.method as 'GET',
    headers: call.headers,
    ...(call.body !== undefined ? { body: call.body } : {}),
    signal: input.signal,
    ...(input.requestId ? { requestId: input.requestId } : {}),
    ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
  });
  if (res.status === 429) {
    res.cancel();
    const retryAfter = retryAfterOf(res);
    throw new GatewayError('RATE_LIMITED', `Agent "${agent}" is rate limiting the gateway`, retryAfter ? { retryAfter } : {});
  }
  if (res.status === 401 || res.status === 403 || res.status === 407) {
    res.cancel();
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" refused the gateway's credentials for operation "${operation}" (HTTP ${res.status})`);
  }
  if (res.status >= 500 || res.status < 200 || (res.status >= 300 && res.status < 400)) {
    res.cancel();
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" failed operation "${operation}" (HTTP ${res.status})`);
  }
  const text = call.method === 'HEAD' || res.status === 204 ? (res.cancel(), '') : await res.text();
  if (!res.ok) {
    // A client error is about this call's arguments or the resource: the caller's to act on.
    const message = `HTTP ${res.status}${text ? `: ${errorMessage(text)}` : ''}`;
    return { isError: true, text: message, structured: { status: res.status, message } };
  }
  if (text === '') return { text: `HTTP ${res.status}` };
  if (!isJson(res)) return { text };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered operation "${operation}" with a body that is not JSON`, { cause: err });
  }
  const bad = input.checkReply?.(data);
  if (bad) {
    input.log.warn({ operation, problem: bad }, 'OpenAPI reply does not match its response schema');
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered operation "${operation}" with data that does not match its response schema`);
  }
  return { structured: data, text };
}
