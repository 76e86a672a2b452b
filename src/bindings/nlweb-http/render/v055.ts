import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isAnswer, normalizeResponseFormat, type CanonicalResponse, type NlwebResponse } from '../../../protocol/nlweb/index.ts';
import type { GatewayError } from '../../../base/errors.ts';
import { isSummaryItem, renderResponseText } from '../../../core/render-text.ts';
import { failureFromError } from '../../../core/responses.ts';

/** 7.4: a promise is 202; every other NLWeb response (failures included) is 200. */
export function statusFor(response: CanonicalResponse): ContentfulStatusCode {
  return response._meta.response_type === 'promise' ? 202 : 200;
}

/**
 * 4.1.1: renders the canonical answer in the requested format. `chatgpt_app` splits it into `content`
 * (text for the model: the summary, or a short list) and `structuredData` (the items).
 */
export function renderFormat(response: CanonicalResponse, format: string | undefined): NlwebResponse {
  if (normalizeResponseFormat(format) !== 'chatgpt_app' || !isAnswer(response)) {
    return response;
  }
  const { results, ...rest } = response;
  return {
    ...rest,
    _meta: { ...response._meta, response_format: 'chatgpt_app' },
    content: [{ type: 'text', text: renderResponseText(response) }],
    structuredData: results.filter((r) => !isSummaryItem(r)),
  };
}

/** Answers a GatewayError as a v0.55 failure body with the status from ERROR_TABLE (7.4). */
export function renderNlwebError(c: Context, err: GatewayError, status?: number): Response {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['Retry-After'] = String(err.retryAfter);
  return c.json(failureFromError(err), (status ?? err.mapping.http) as ContentfulStatusCode, headers);
}
