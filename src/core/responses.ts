import {
  NLWEB_VERSION,
  type AnswerResponse,
  type CanonicalResponse,
  type Elicitation,
  type ElicitationResponse,
  type FailureResponse,
  type PromiseInfo,
  type PromiseResponse,
  type ResultItem,
} from '../protocol/nlweb/index.ts';
import { ERROR_TABLE, isErrorCode, type GatewayError } from '../base/errors.ts';

type ExtraMeta = Record<string, unknown>;

/** 4.1.1 A conversational_search answer. */
export function answerResponse(results: ResultItem[], meta: ExtraMeta = {}): AnswerResponse {
  return { _meta: { ...meta, response_type: 'answer', response_format: 'conversational_search', version: NLWEB_VERSION }, results };
}

/** 4.1.3 An elicitation. */
export function elicitationResponse(elicitation: Elicitation, meta: ExtraMeta = {}): ElicitationResponse {
  return { _meta: { ...meta, response_type: 'elicitation', version: NLWEB_VERSION }, elicitation };
}

/** 4.1.2 A promise. */
export function promiseResponse(promise: PromiseInfo, meta: ExtraMeta = {}): PromiseResponse {
  return { _meta: { ...meta, response_type: 'promise', version: NLWEB_VERSION }, promise };
}

/** 4.1.4 A failure. `code` may be a gateway code (mapped to its NLWeb code) or an NLWeb/upstream code. */
export function failureResponse(code: string, message: string, meta: ExtraMeta = {}): FailureResponse {
  const nlwebCode = isErrorCode(code) ? ERROR_TABLE[code].nlweb : code;
  return { _meta: { ...meta, response_type: 'failure', version: NLWEB_VERSION }, error: { code: nlwebCode, message } };
}

/** 4.1.4 The failure a GatewayError renders to. */
export function failureFromError(err: GatewayError, meta: ExtraMeta = {}): FailureResponse {
  return failureResponse(err.code, err.message, meta);
}

/** Returns the response with `_meta.session_context` set (4 `_meta`). */
export function withSessionContext<T extends CanonicalResponse>(response: T, sessionContext: Record<string, unknown>): T {
  return { ...response, _meta: { ...response._meta, session_context: sessionContext } };
}
