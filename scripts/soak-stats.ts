/** The soak's arithmetic (scripts/soak.ts): least-squares slope and the growth between thirds. */
export interface Sample {
  /** Seconds since the soak started. */
  t: number;
  rssMb: number;
  eventLoopDelayMs: number;
  handles: number;
  redisKeys: number;
}

type Key = Exclude<keyof Sample, 't'>;

/** Least-squares slope of `key` over time (units per second). */
export function slope(samples: Sample[], key: Key): number {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const mt = samples.reduce((a, s) => a + s.t, 0) / n;
  const mv = samples.reduce((a, s) => a + s[key], 0) / n;
  const num = samples.reduce((a, s) => a + (s.t - mt) * (s[key] - mv), 0);
  const den = samples.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/** Mean of the first and last third, and the relative growth between them (0 when flat or shrinking). */
export function trend(samples: Sample[], key: Key): { first: number; last: number; growth: number } {
  const third = Math.max(1, Math.floor(samples.length / 3));
  const mean = (xs: Sample[]) => xs.reduce((a, s) => a + s[key], 0) / Math.max(1, xs.length);
  const first = mean(samples.slice(0, third));
  const last = mean(samples.slice(-third));
  return { first, last, growth: first > 0 ? Math.max(0, (last - first) / first) : last > 0 ? 1 : 0 };
}
