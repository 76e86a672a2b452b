import type { GatewayError } from '../../base/errors.ts';
import { isSummaryItem, renderResponseText } from '../../core/render-text.ts';
import { failureFromError } from '../../core/responses.ts';
import { isAnswer, isElicitation, isFailure, isPromise, type CanonicalResponse } from '../../protocol/nlweb/index.ts';
import {
  errorPart,
  jsonPart,
  nlipMessage,
  textPart,
  tokenPart,
  TOKEN_PREFIX,
  uriPart,
  type NlipMessage,
  type NlipPart,
} from '../../protocol/nlip/index.ts';

/**
 * Canonical responses as NLIP messages (design.md mapping table, right to left). Every reply opens
 * with readable text (the summary or a short rendering), then the machine-readable parts, then the
 * conversation tokens (6.2). Emit strictly: these go through `toWire`.
 */

/** How a reply is framed for this peer. */
export interface ReplyStyle {
  /** Conversation token parts to carry (echoed and minted). */
  tokens: NlipPart[];
  /** The peer used the older `control` key: answer with it too (6.3). */
  legacyControl: boolean;
}

const msg = (text: string, parts: NlipPart[], style: ReplyStyle, control = false): NlipMessage =>
  nlipMessage(textPart(text), [...parts, ...style.tokens], { control, legacyControl: style.legacyControl });

/**
 * The reply for a canonical response: answer (text + one labelled `structured`/`json` part per
 * item), elicitation (text + the questions), promise (text + a `promise` token), failure (text + error).
 */
export function renderResponse(response: CanonicalResponse, style: ReplyStyle, notes: string[] = []): NlipMessage {
  const text = [renderResponseText(response), ...notes].join('\n');
  if (isAnswer(response)) {
    const items = response.results.filter((r) => !isSummaryItem(r));
    return msg(text, items.map((item, i) => jsonPart(item, `result-${i + 1}`)), style);
  }
  if (isElicitation(response)) return msg(text, [jsonPart(response.elicitation, 'elicitation')], style);
  if (isPromise(response)) {
    const { token, ...status } = response.promise;
    const parts = [tokenPart(TOKEN_PREFIX.promise, token)];
    if (Object.keys(status).length > 0) parts.push(jsonPart(status, 'promise'));
    return msg(text, parts, style);
  }
  if (isFailure(response)) return msg(text, [errorPart('code', response.error.code)], style);
  return msg(text, [], style);
}

/** An application-level failure (HTTP 200, interop.md): text plus the NLWeb error code. */
export function renderError(err: GatewayError, style: ReplyStyle): NlipMessage {
  return renderResponse(failureFromError(err), style);
}

/** A reply that is not from the agent: the gateway explains something (no question, bad filters). */
export function renderNotice(text: string, style: ReplyStyle, code?: string): NlipMessage {
  return msg(text, code ? [errorPart('code', code)] : [], style);
}

/** 6.5 A control message asking the peer for authentication. */
export function renderAuthRequest(agent: string | undefined, style: ReplyStyle): NlipMessage {
  const who = agent ? `Agent "${agent}"` : 'This agent';
  const text =
    `${who} requires authentication. Send a token submessage with subformat "authentication" ` +
    '(or an Authorization header) with this and every later message.';
  return msg(text, [errorPart('code', 'UNAUTHORIZED')], style, true);
}

/** 6.4 A control message giving the upload location (a `structured`/`uri` part). */
export function renderUploadLocation(uploadUrl: string, style: ReplyStyle): NlipMessage {
  const text =
    `Upload large content with POST ${uploadUrl} (multipart/form-data, field "contents"), ` +
    'then reference it in a later message with the structured/uri submessage that the upload returns.';
  return msg(text, [uriPart(uploadUrl, 'upload')], style, true);
}

/** 6.3 A control message answering a control message. */
export function renderControl(text: string, style: ReplyStyle): NlipMessage {
  return msg(text, [], style, true);
}

/** 6.3 The answer to any other control message: what this end-point supports. */
export function renderControlInfo(style: ReplyStyle): NlipMessage {
  return renderControl(
    'nlgate NLIP end-point. Send questions as text messages; conversation tokens are echoed and kept; ' +
      'ask for an upload location with a control message mentioning "upload"; send credentials as a ' +
      'token submessage with subformat "authentication" or an Authorization header.',
    style,
  );
}

/** A transport-level rejection body (4xx): what is wrong, as an NLIP message. */
export function renderRejection(text: string, code: string): NlipMessage {
  return nlipMessage(textPart(text), [errorPart('code', code)]);
}
