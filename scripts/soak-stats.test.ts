import { describe, expect, it } from 'vitest';
import { slope, trend, type Sample } from './soak-stats.ts';

const series = (f: (t: number) => number): Sample[] =>
  Array.from({ length: 30 }, (_, i) => ({ t: i * 10, rssMb: f(i * 10), eventLoopDelayMs: 1, handles: 10, redisKeys: 100 }));

describe('soak statistics', () => {
  it('a flat series has no slope and no growth, even with noise', () => {
    const s = series((t) => 100 + (t % 20 === 0 ? 1 : -1));
    expect(Math.abs(slope(s, 'rssMb'))).toBeLessThan(0.01);
    expect(trend(s, 'rssMb').growth).toBeLessThan(0.05);
  });

  it('a leak shows as a positive slope and growth above the tolerance', () => {
    const s = series((t) => 100 + t);
    expect(slope(s, 'rssMb')).toBeCloseTo(1, 5);
    expect(trend(s, 'rssMb').growth).toBeGreaterThan(0.1);
  });

  it('shrinking is not growth', () => {
    expect(trend(series((t) => 1000 - t), 'rssMb').growth).toBe(0);
  });
});
