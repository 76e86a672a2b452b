/** What `raceTimeout` resolves with when the time ran out first. */
export const TIMED_OUT = Symbol('timed out');

/** Resolves with the promise's value, or TIMED_OUT after `ms` (the promise keeps running; NLWeb 4.1.2 promiseAfterMs). */
export function raceTimeout<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
