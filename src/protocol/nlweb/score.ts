/**
 * The one score scale the gateway emits on every result item, whatever agent produced it: 0-100,
 * higher is better, as the NLWeb reference servers (v0.54 and the older REST API) send it. A client
 * that sorts or filters by `score` (`min_score`) therefore works across agents (docs/nlweb.md "Scores").
 */

/** The top of the scale. */
export const SCORE_MAX = 100;

/** How an upstream states its scores: 0-100 (the reference servers) or 0-1 (a fraction). */
export type ScoreScale = '0-100' | '0-1';

/**
 * An upstream score on the gateway's 0-100 scale: a fraction is multiplied out, the result is
 * clamped to 0-100 and kept to one decimal. Non-numbers and non-finite values give undefined.
 */
export function toGatewayScore(value: unknown, scale: ScoreScale = '0-100'): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const scaled = scale === '0-1' ? value * SCORE_MAX : value;
  return Math.round(Math.min(SCORE_MAX, Math.max(0, scaled)) * 10) / 10;
}

/**
 * A client's `min_score` on the 0-100 scale. Older clients sent a fraction (0-1), so a value
 * in (0, 1) is read as one; 0, negatives and non-numbers mean no threshold.
 */
export function minScoreThreshold(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  return value < 1 ? value * SCORE_MAX : Math.min(value, SCORE_MAX);
}
