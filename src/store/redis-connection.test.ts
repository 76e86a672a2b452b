import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../base/errors.ts';
import { storeUnavailable, toStoreError } from './redis-connection.ts';

describe('toStoreError', () => {
  it('maps connection trouble to STORE_UNAVAILABLE with retryAfter 1, keeping the cause for logs', () => {
    for (const err of [new Error('Connection is closed.'), new Error('Command timed out'), Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' })]) {
      const mapped = toStoreError(err);
      expect(mapped).toMatchObject({ code: 'STORE_UNAVAILABLE', retryAfter: 1, message: 'The state store is unavailable' });
      expect(mapped.cause).toBe(err);
    }
  });

  it('maps failover and loading replies to STORE_UNAVAILABLE, other server replies to INTERNAL_ERROR', () => {
    for (const reply of ['READONLY You can\'t write against a read only replica.', 'LOADING Redis is loading', 'CLUSTERDOWN The cluster is down', 'MASTERDOWN Link with MASTER is down', 'TRYAGAIN Multiple keys request during rehashing']) {
      expect(toStoreError(new ReplyError(reply)).code, reply).toBe('STORE_UNAVAILABLE');
    }
    // A full Redis under noeviction (issue 24, hole 3: the policy docs/state.md recommends) is a 503 with Retry-After, not an internal error.
    expect(toStoreError(new ReplyError("OOM command not allowed when used memory > 'maxmemory'.")).code).toBe('STORE_UNAVAILABLE');
    const bug = toStoreError(new ReplyError('ERR Error running script: attempt to compare nil'));
    expect(bug.code).toBe('INTERNAL_ERROR');
    // The client-facing message never carries the server's text.
    expect(bug.message).not.toContain('script');
  });

  it('passes a GatewayError through unchanged', () => {
    const err = storeUnavailable();
    expect(toStoreError(err)).toBe(err);
    expect(err).toBeInstanceOf(GatewayError);
  });
});
