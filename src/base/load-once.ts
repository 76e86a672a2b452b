/**
 * A memoised async loader, for `import()` of code a deployment may never use (issue 23): the first
 * call starts the load, later calls share it, and a failed load is tried again on the next call
 * rather than failing every later request. `now()` gives the value once loaded, so a hot path
 * need not await a promise that has long resolved (each such await cost a request promises, issue 25).
 */
export interface Loader<T> {
  (): Promise<T>;
  /** The loaded value, or undefined until the load has succeeded. */
  now(): T | undefined;
}

/** A Loader of what `load` resolves to. */
export function loadOnce<T>(load: () => Promise<T>): Loader<T> {
  let loading: Promise<T> | undefined;
  let loaded: { value: T } | undefined;
  const get = () =>
    (loading ??= load().then(
      (value) => ((loaded = { value }), value),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  return Object.assign(get, { now: () => loaded?.value });
}
