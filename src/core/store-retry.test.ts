import { describe, expect, it } from 'vitest';
import { GatewayError } from '../base/errors.ts';
import { silentLogger } from '../base/logger.ts';
import { retryStoreWrite } from './store-retry.ts';

const down = () => new GatewayError('STORE_UNAVAILABLE', 'The state store is unavailable');

describe('retryStoreWrite', () => {
  it('retries while the store is unavailable and returns the write once it lands', async () => {
    let calls = 0;
    const result = await retryStoreWrite(
      async () => {
        if (++calls < 4) throw down();
        return 'settled';
      },
      { until: Date.now() + 10_000, log: silentLogger, what: 'test' },
    );
    expect({ result, calls }).toEqual({ result: 'settled', calls: 4 });
  });

  it('does not retry other errors: they are the caller\'s to handle', async () => {
    let calls = 0;
    await expect(
      retryStoreWrite(async () => {
        calls++;
        throw new GatewayError('INVALID_REQUEST', 'bad');
      }, { until: Date.now() + 10_000, log: silentLogger, what: 'test' }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(calls).toBe(1);
  });

  it('gives up (undefined) once the state could no longer live, or when stopped', async () => {
    expect(await retryStoreWrite(async () => Promise.reject(down()), { until: Date.now() + 250, log: silentLogger, what: 'test' })).toBeUndefined();
    let stop = false;
    setTimeout(() => (stop = true), 150);
    expect(await retryStoreWrite(async () => Promise.reject(down()), { until: Date.now() + 60_000, stopped: () => stop, log: silentLogger, what: 'test' })).toBeUndefined();
  });
});
