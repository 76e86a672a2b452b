/**
 * A memoised async loader, for `import()` of code a deployment may never use (issue 23): the first
 * call starts the load, later calls share it, and a failed load is tried again on the next call
 * rather than failing every later request.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}
