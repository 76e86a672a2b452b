/**
 * A failure a webtool reports in its error envelope: one of the draft's standard codes or its own
 * domain-specific code ("Webtools MAY define their own custom error codes").
 */
export class WebtoolFailure extends Error {
  override readonly name = 'WebtoolFailure';
  constructor(
    readonly code: string,
    message: string,
    /** Seconds, sent as `Retry-After` with RATE_LIMIT. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}
