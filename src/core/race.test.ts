import { afterEach, describe, expect, it, vi } from 'vitest';
import { raceTimeout, TIMED_OUT } from './race.ts';

afterEach(() => vi.useRealTimers());

describe('raceTimeout', () => {
  it('resolves with the value when the promise settles first, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const raced = raceTimeout(Promise.resolve('answer'), 1000);
    await expect(raced).resolves.toBe('answer');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves TIMED_OUT when the time runs out first, and the promise keeps its own outcome', async () => {
    vi.useFakeTimers();
    let settle!: (v: string) => void;
    const slow = new Promise<string>((r) => (settle = r));
    const raced = raceTimeout(slow, 50);
    vi.advanceTimersByTime(50);
    await expect(raced).resolves.toBe(TIMED_OUT);
    settle('late');
    await expect(slow).resolves.toBe('late');
  });

  it('rejects with the promise’s error when it fails first, and clears its timer', async () => {
    vi.useFakeTimers();
    const raced = raceTimeout(Promise.reject(new Error('boom')), 1000);
    await expect(raced).rejects.toThrow('boom');
    expect(vi.getTimerCount()).toBe(0);
  });
});
