/**
 * Rate limiters over a store's backend, built on rate-limiter-flexible (fixed windows, atomic in
 * Redis through one Lua script, shared by every replica). The store hands them out by name so the
 * core stays store-agnostic (`Store.limiter`).
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** What taking one request from a limiter decided. */
export interface LimitDecision {
  /** False when the key has used up its window. */
  allowed: boolean;
  /** Milliseconds until the window starts again (when refused, how long to wait). */
  retryAfterMs: number;
}

/** `points` requests per window per key; `consume(key)` takes one. */
export interface Limiter {
  consume(key: string): Promise<LimitDecision>;
}

/** Windows are whole seconds (the Redis limiter sets `EX` in seconds); at least one. */
export function windowSeconds(durationMs: number): number {
  return Math.max(1, Math.ceil(durationMs / 1000));
}

/** Wraps a rate-limiter-flexible limiter: a refusal is a decision, a backend failure goes to `onError`. */
export function wrapLimiter(limiter: RateLimiterAbstract, onError: (err: unknown) => never = (err) => { throw err; }): Limiter {
  // `.then` rather than an async function: one promise less on every request's path (issue 25).
  const allowed = (res: RateLimiterRes): LimitDecision => ({ allowed: true, retryAfterMs: res.msBeforeNext });
  const refused = (err: unknown): LimitDecision => {
    if (err instanceof RateLimiterRes) return { allowed: false, retryAfterMs: Math.max(1, err.msBeforeNext) };
    return onError(err);
  };
  return { consume: (key) => limiter.consume(key).then(allowed, refused) };
}

/** One limiter per (name, points, window), made on first use and kept (the cache every replica object shares). */
export class LimiterCache {
  private readonly limiters = new Map<string, Limiter>();

  constructor(private readonly make: (name: string, points: number, seconds: number) => Limiter) {}

  /** The limiter for `name` with `points` per `durationMs`. */
  get(name: string, points: number, durationMs: number): Limiter {
    const seconds = windowSeconds(durationMs);
    const id = `${name}|${points}|${seconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.make(name, points, seconds);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
