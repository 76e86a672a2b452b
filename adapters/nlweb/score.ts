import type { AgentEvent } from '../../src/core/events.ts';
import { minScoreThreshold, SCORE_MAX, toGatewayScore, type AskRequest, type ScoreScale } from '../../src/protocol/nlweb/index.ts';

/**
 * Puts an upstream's result scores on the gateway's one 0-100 scale (protocol/nlweb/score.ts), so
 * `score` means the same on every agent: the reference servers already send 0-100 (clamped here);
 * an upstream configured with `scoreScale: "0-1"` has its fractions multiplied out.
 */
export async function* onGatewayScale(events: AsyncIterable<AgentEvent>, scale: ScoreScale): AsyncGenerator<AgentEvent> {
  for await (const e of events) yield gatewayScaled(e, scale);
}

/** One event with its result's score on the gateway's scale (the event itself when it has none). */
export function gatewayScaled(e: AgentEvent, scale: ScoreScale): AgentEvent {
  if (e.type !== 'result' || e.item.score === undefined) return e;
  const score = toGatewayScore(e.item.score, scale);
  const { score: _raw, ...rest } = e.item;
  return { type: 'result', item: score === undefined ? rest : { ...rest, score } };
}

/** The client's `min_score` (0-100) in the upstream's own scale, so its threshold means the same there. */
export function onUpstreamScale(request: AskRequest, scale: ScoreScale): AskRequest {
  const min = minScoreThreshold(request.query.min_score);
  if (scale === '0-100' || min === undefined) return request;
  return { ...request, query: { ...request.query, min_score: min / SCORE_MAX } };
}
