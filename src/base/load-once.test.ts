import { describe, expect, it } from 'vitest';
import { loadOnce } from './load-once.ts';

describe('loadOnce', () => {
  it('loads once for every caller, and again after a failed load', async () => {
    let calls = 0;
    const get = loadOnce(async () => {
      calls++;
      if (calls === 1) throw new Error('first load fails');
      return calls;
    });
    await expect(get()).rejects.toThrow('first load fails');
    expect(await Promise.all([get(), get()])).toEqual([2, 2]);
    expect(await get()).toBe(2);
    expect(calls).toBe(2);
  });

  it('now() gives the value only once a load has succeeded', async () => {
    let fail = true;
    const get = loadOnce(async () => {
      if (fail) throw new Error('fails');
      return 'value';
    });
    expect(get.now()).toBeUndefined();
    await expect(get()).rejects.toThrow('fails');
    expect(get.now()).toBeUndefined();
    fail = false;
    const pending = get();
    expect(get.now()).toBeUndefined(); // still loading
    expect(await pending).toBe('value');
    expect(get.now()).toBe('value');
  });
});
