import type { AskRequest } from '../protocol/nlweb/index.ts';
import { GatewayError } from '../base/errors.ts';

/** Caps on what a caller can make the core keep or do (the config's `limits` section, issue 11). */
export interface CoreLimits {
  /** Longest `query.text` accepted; a longer one is refused before any work. */
  maxQueryChars: number;
  /** A stored previous query is cut to this many characters. */
  maxPrevItemChars: number;
  /** The stored previous queries of a conversation keep at most this many characters together. */
  maxPrevTotalChars: number;
  /** Agent calls one principal may keep running at once on this replica (call-slots.ts); absent: no cap. */
  maxCallsPerPrincipal?: number;
  /** Agent calls running at once on this replica, for anonymous callers and verified principals each; absent: no cap. */
  maxCallsInFlight?: number;
}

/**
 * `limits.maxQueryChars` (NLWeb 3.1 `query.text`): a longer query is refused with INVALID_QUERY
 * before routing, the store or any agent sees it, on every protocol (they all ask through the core).
 */
export function checkQueryLength(request: AskRequest, limits: Pick<CoreLimits, 'maxQueryChars'> | undefined): void {
  const max = limits?.maxQueryChars;
  const length = request.query.text.length;
  if (max !== undefined && length > max) {
    throw new GatewayError('INVALID_QUERY', `query.text is ${length} characters long; the most this gateway accepts is ${max}`);
  }
}
