import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddressResolver, clientKey } from './client-address.ts';

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

describe('client key (server.ipv6ClientPrefix)', () => {
  it('counts an IPv6 client by its prefix, in one spelling; IPv4 and non-addresses stay as they are', () => {
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64)).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:DB8:0:0:1:0:0:1', 64)).toBe('2001:db8::/64');
    expect(clientKey('2001:db8:1:2:3:4:5:6', 48)).toBe('2001:db8:1::/48');
    expect(clientKey('fe80::1%eth0', 64)).toBe('fe80::/64');
    expect(clientKey('2001:db8::1', 128)).toBe('2001:db8::1');
    expect(clientKey('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(clientKey('unknown', 64)).toBe('unknown');
  });

  it('property: two IPv6 addresses, however spelt, share a key exactly when their first `prefix` bits are equal', () => {
    const full = (hextets: number[]) => hextets.map((h) => h.toString(16)).join(':');
    // The WHATWG URL parser's compressed spelling (`2001:db8::1`): another way a peer address may read.
    const compressed = (hextets: number[]) => new URL(`http://[${full(hextets)}]/`).hostname.slice(1, -1);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), fc.integer({ min: 0, max: 127 }), fc.integer({ min: 16, max: 127 }), (a, flip, prefix) => {
        fc.pre(!(a[0] === 0 && a[1] === 0 && a[2] === 0 && a[3] === 0 && a[4] === 0 && a[5] === 0xffff)); // IPv4-mapped: counted as IPv4
        const b = [...a];
        b[flip >> 4] = b[flip >> 4]! ^ (0x8000 >> (flip & 15));
        expect(clientKey(full(a), prefix) === clientKey(compressed(b), prefix)).toBe(flip >= prefix);
        expect(clientKey(full(a), prefix)).toBe(clientKey(compressed(a), prefix));
      }),
    );
  });

  it('a trusted proxy is matched by its whole address; the client it reports is counted by its prefix', () => {
    const resolve = clientAddressResolver(['2001:db8::1'], 64);
    expect(resolve('2001:db8::1', '2001:db8:5:6:7:8:9:a')).toBe('2001:db8:5:6::/64');
    // Another address of the proxy's own /64 is not the proxy: its header is ignored, and it is counted by its prefix.
    expect(resolve('2001:db8::2', '203.0.113.7')).toBe('2001:db8::/64');
    expect(clientAddressResolver([], 64)('::ffff:192.0.2.1', undefined)).toBe('192.0.2.1');
  });
});
