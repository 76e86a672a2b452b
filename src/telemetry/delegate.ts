/**
 * A plain object that answers for `target`: each of its methods (own or inherited, found once, now)
 * bound to it, or the wrapper `wrap` returns for it; every other property read through to it. It
 * keeps `target`'s prototype, so `instanceof` still holds. The instrumented gateway and store were
 * Proxies, whose `get` trap (and a map lookup) ran on every property read of every request (issue
 * 25); this is built once, and a read is a plain property load.
 */
export function delegateTo<T extends object>(target: T, wrap: (key: string, method: (...args: unknown[]) => unknown) => ((...args: unknown[]) => unknown) | undefined): T {
  const out = Object.create(Object.getPrototypeOf(target) as object | null) as Record<string | symbol, unknown>;
  const seen = new Set<string | symbol>(['constructor']);
  for (let level: object | null = target; level !== null && level !== Object.prototype; level = Object.getPrototypeOf(level) as object | null) {
    for (const key of Reflect.ownKeys(level)) {
      if (seen.has(key)) continue;
      seen.add(key);
      const value = typeof key === 'string' && !Object.getOwnPropertyDescriptor(level, key)?.get ? (target as Record<string, unknown>)[key] : undefined;
      if (typeof value === 'function') {
        const method = value as (...args: unknown[]) => unknown;
        Object.defineProperty(out, key, { value: wrap(key as string, method) ?? method.bind(target), enumerable: false });
      } else {
        Object.defineProperty(out, key, { get: () => (target as Record<string | symbol, unknown>)[key], enumerable: true });
      }
    }
  }
  return out as T;
}
