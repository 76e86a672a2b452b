import type { AgentEvent } from '../../src/core/events.ts';
import { GatewayError } from '../../src/base/errors.ts';
import { contentEvents, isObject, looksLikeReply, replyMeta, responseType } from './reply-fields.ts';

/**
 * Maps a whole JSON reply (spec 4: answer, elicitation, promise or failure, in either casing, and
 * the ChatGPT App structure) to canonical events: `start`, the content, `complete`. A failure inside
 * HTTP 200 (7.4) is an `error` event, not an exception. Throws UPSTREAM_ERROR only when the body is
 * not an NLWeb reply at all.
 */
export function mapJsonReply(body: unknown, agent: string): AgentEvent[] {
  if (!isObject(body) || !looksLikeReply(body)) {
    throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered with something that is not an NLWeb response`);
  }
  const meta = replyMeta(body);
  const content = contentEvents(body, agent);
  const type = responseType(meta);
  if (type === 'failure' && !content.some((e) => e.type === 'error')) {
    content.push({ type: 'error', code: 'INTERNAL_ERROR', message: `Agent "${agent}" reported a failure`, recoverable: false });
  }
  if (type === 'promise' && !content.some((e) => e.type === 'promise' || e.type === 'error')) {
    content.push({ type: 'error', code: 'INTERNAL_ERROR', message: `Agent "${agent}" answered with a promise that has no token`, recoverable: false });
  }
  return [
    { type: 'start', ...(meta ? { meta: { ...meta } } : {}) },
    ...content,
    { type: 'complete', ...(meta ? { meta: { ...meta } } : {}) },
  ];
}
