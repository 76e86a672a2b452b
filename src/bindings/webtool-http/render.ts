import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ToolResult } from '../../core/agent.ts';
import { ERROR_TABLE, isErrorCode, type GatewayError } from '../../base/errors.ts';
import { isFailure, type CanonicalResponse } from '../../protocol/nlweb/index.ts';
import {
  CUSTOM_ERROR_CODE,
  CUSTOM_ERROR_STATUS,
  errorEnvelope,
  isWebtoolErrorCode,
  okEnvelope,
  WEBTOOL_ERROR_STATUS,
} from '../../protocol/webtool/index.ts';

/**
 * Statuses that describe the transport rather than the action (401, 403, 413, 415) are kept; everything
 * else takes the status of its webtool code (interop.md), so INTERNAL_ERROR is always 500.
 */
const TRANSPORT_STATUSES = new Set([401, 403, 413, 415]);
const MAX_MESSAGE = 500;

/** Status of a webtool error code: the five standard ones per interop.md, custom codes 422. */
function statusOfCode(code: string): number {
  return isWebtoolErrorCode(code) ? WEBTOOL_ERROR_STATUS[code] : CUSTOM_ERROR_STATUS;
}

/** Sends an error envelope ("Error Response"); RATE_LIMIT always carries Retry-After (interop.md). */
export function sendError(c: Context, code: string, message: string, status = statusOfCode(code), retryAfter?: number): Response {
  const headers: Record<string, string> = {};
  if (code === 'RATE_LIMIT') headers['Retry-After'] = String(retryAfter ?? 1);
  if (status === 405) headers.Allow = 'GET, POST';
  return c.json(errorEnvelope(code, message.slice(0, MAX_MESSAGE)), status as ContentfulStatusCode, headers);
}

/** Renders a GatewayError through ERROR_TABLE's `webtool` column ("Error Handling"). */
export function sendGatewayError(c: Context, err: GatewayError): Response {
  const code = err.mapping.webtool;
  const status = TRANSPORT_STATUSES.has(err.mapping.http) ? err.mapping.http : statusOfCode(code);
  return sendError(c, code, err.message, status, err.retryAfter);
}

/**
 * Renders a canonical NLWeb response as an envelope: answers, elicitations and promises are `data`
 * (design.md mapping); a failure is an error, except NO_RESULTS, which is a normal outcome of a
 * search and stays in `data` so the caller still reads the agent's message.
 */
export function sendCanonical(c: Context, response: CanonicalResponse): Response {
  if (!isFailure(response) || response.error.code === 'NO_RESULTS') {
    return c.json(okEnvelope(response));
  }
  const { code, message } = response.error;
  const webtoolCode = isErrorCode(code) ? ERROR_TABLE[code].webtool : CUSTOM_ERROR_CODE.test(code) ? code : 'INTERNAL_ERROR';
  return sendError(c, webtoolCode, message ?? code);
}

/**
 * Renders a structured tool result: `data` is the structured result, or `{ text, content }` when the
 * tool gave none. A tool-reported failure keeps the tool's own code when it has one ("custom codes").
 */
export function sendToolResult(c: Context, result: ToolResult): Response {
  if (result.isError) {
    const s = result.structured as { code?: unknown; message?: unknown } | undefined;
    const code = typeof s?.code === 'string' && CUSTOM_ERROR_CODE.test(s.code) ? s.code : 'TOOL_ERROR';
    const message = result.text ?? (typeof s?.message === 'string' ? s.message : 'The tool reported a failure');
    return sendError(c, code, message);
  }
  if (result.structured !== undefined) return c.json(okEnvelope(result.structured));
  return c.json(okEnvelope({ ...(result.text !== undefined ? { text: result.text } : {}), ...(result.content ? { content: result.content } : {}) }));
}
