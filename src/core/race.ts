/** What `raceTimeout` resolves with when the time ran out first. */
export const TIMED_OUT = Symbol('timed out');

/**
 * Resolves with the promise's value, or TIMED_OUT after `ms` (the promise keeps running; NLWeb 4.1.2
 * promiseAfterMs). One promise and one timer: `Promise.race` with a timeout promise and a `finally`
 * made three promises and two more turns of the microtask queue on every ask (issue 25).
 */
export function raceTimeout<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  return new Promise<T | typeof TIMED_OUT>((resolve, reject) => {
    const timer = setTimeout(resolve, ms, TIMED_OUT);
    p.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
