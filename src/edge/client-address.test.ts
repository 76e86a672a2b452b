import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddressResolver } from './client-address.ts';

describe('client address (trustedProxies)', () => {
  it('believes nobody\'s X-Forwarded-For when no proxy is trusted', () => {
    const resolve = clientAddressResolver([]);
    fc.assert(
      fc.property(fc.string(), (xff) => {
        expect(resolve('10.0.0.9', xff)).toBe('10.0.0.9');
      }),
    );
  });

  it('reads X-Forwarded-For from the right, skipping trusted hops, only when the peer is trusted', () => {
    const resolve = clientAddressResolver(['10.0.0.0/8', '::1']);
    expect(resolve('10.1.2.3', '203.0.113.7')).toBe('203.0.113.7');
    expect(resolve('10.1.2.3', '198.51.100.1, 203.0.113.7, 10.9.9.9')).toBe('203.0.113.7');
    expect(resolve('::1', '203.0.113.7')).toBe('203.0.113.7');
    // An untrusted peer's header is ignored: the client cannot choose its own bucket.
    expect(resolve('192.0.2.1', '203.0.113.7')).toBe('192.0.2.1');
    // Garbage stops the walk at the last hop a trusted proxy reported.
    expect(resolve('10.1.2.3', 'not-an-ip')).toBe('10.1.2.3');
    expect(resolve('::ffff:10.1.2.3', '203.0.113.7')).toBe('203.0.113.7');
  });

  it('whatever the header says, the result is the peer or an address in the header', () => {
    const resolve = clientAddressResolver(['127.0.0.0/8']);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.ipV4(), fc.string({ maxLength: 10 })), { maxLength: 5 }), (hops) => {
        const got = resolve('127.0.0.5', hops.join(', '));
        expect(['127.0.0.5', ...hops.map((h) => h.trim().toLowerCase())]).toContain(got);
      }),
    );
  });
});
