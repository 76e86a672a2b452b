import fc from 'fast-check';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../base/errors.ts';
import { createRedisClient, parseRedisUrl, type RedisTarget } from './redis-url.ts';

describe('parseRedisUrl', () => {
  it('passes redis:// and rediss:// URLs through to ioredis unchanged', () => {
    for (const url of ['redis://localhost:6379', 'redis://:pw@10.0.0.1:6380/2', 'rediss://user:p%40ss@cache.example:6380/0', 'REDIS://h']) {
      expect(parseRedisUrl(url)).toEqual({ mode: 'standalone', url });
    }
  });

  it('parses a Sentinel URL into sentinels, master name, auth, db and sentinel auth', () => {
    expect(parseRedisUrl('redis-sentinel://app:s%3Acret@s1:26380,s2,[::1]:26381/my%20master?db=3&sentinelPassword=sp&sentinelUsername=su')).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 's1', port: 26380 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26381 },
      ],
      name: 'my master',
      tls: false,
      username: 'app',
      password: 's:cret',
      db: 3,
      sentinelUsername: 'su',
      sentinelPassword: 'sp',
    });
    expect(parseRedisUrl('rediss-sentinel://s1/mymaster')).toMatchObject({ mode: 'sentinel', tls: true, name: 'mymaster' });
  });

  it('parses a Cluster URL into startup nodes (default port 6379) and auth', () => {
    expect(parseRedisUrl('redis-cluster://:pw@n1:7000,n2,n3:7002')).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 6379 },
        { host: 'n3', port: 7002 },
      ],
      tls: false,
      password: 'pw',
    });
    expect(parseRedisUrl('rediss-cluster://n1:7000')).toMatchObject({ mode: 'cluster', tls: true });
  });

  it('rejects what it cannot use with CONFIG_ERROR, naming the problem', () => {
    const bad = [
      'http://localhost:6379',
      'localhost:6379',
      'redis-sentinel://s1:26379',
      'redis-sentinel://s1:26379/',
      'redis-cluster://n1:7000/0',
      'redis-cluster://n1:70000',
      'redis-cluster://n1:0',
      'redis-sentinel://,/m',
      'redis-sentinel://s1/m?db=x',
      'redis-cluster://[zz]:1',
      'redis://[',
    ];
    for (const url of bad) {
      expect(() => parseRedisUrl(url), url).toThrow(GatewayError);
      try {
        parseRedisUrl(url);
      } catch (err) {
        expect((err as GatewayError).code).toBe('CONFIG_ERROR');
      }
    }
  });

  const hostname = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?$/);
  const hostPort = fc.record({ host: fc.oneof(hostname, fc.ipV4()), port: fc.integer({ min: 1, max: 65535 }) });
  const secret = fc.string({ minLength: 1, maxLength: 20 });

  it('property: any sentinel URL built from parts parses back to those parts', () => {
    fc.assert(
      fc.property(fc.array(hostPort, { minLength: 1, maxLength: 4 }), fc.string({ minLength: 1, maxLength: 20 }), secret, fc.nat(15), (hosts, name, pw, db) => {
        const url = `redis-sentinel://:${encodeURIComponent(pw)}@${hosts.map((h) => `${h.host}:${h.port}`).join(',')}/${encodeURIComponent(name)}?db=${db}`;
        expect(parseRedisUrl(url)).toEqual({ mode: 'sentinel', sentinels: hosts, name, tls: false, password: pw, db });
      }),
    );
  });

  it('property: any cluster URL built from parts parses back to those parts', () => {
    fc.assert(
      fc.property(fc.array(hostPort, { minLength: 1, maxLength: 6 }), secret, secret, (nodes, user, pw) => {
        const url = `rediss-cluster://${encodeURIComponent(user)}:${encodeURIComponent(pw)}@${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
        expect(parseRedisUrl(url)).toEqual({ mode: 'cluster', nodes, tls: true, username: user, password: pw });
      }),
    );
  });

  it('property: any string either parses or fails with CONFIG_ERROR that never echoes the password', () => {
    const anyUrl = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom('redis', 'rediss', 'redis-sentinel', 'redis-cluster', 'rediss-sentinel'), fc.string()).map(([s, rest]) => `${s}://${rest}`),
    );
    fc.assert(
      fc.property(anyUrl, fc.stringMatching(/^[A-Za-z0-9]{12}$/), (url, pw) => {
        const withSecret = url.replace('://', `://:${pw}@`);
        try {
          parseRedisUrl(withSecret);
        } catch (err) {
          expect(err).toBeInstanceOf(GatewayError);
          expect((err as GatewayError).code).toBe('CONFIG_ERROR');
          expect((err as GatewayError).message).not.toContain(pw);
        }
      }),
    );
  });
});

describe('createRedisClient', () => {
  /** Builds the client, reads its options, and drops it before it dials anything for long. */
  function optionsOf(target: RedisTarget): { client: Redis | Cluster; options: Record<string, unknown> } {
    const client = createRedisClient(target);
    const options = client.options as unknown as Record<string, unknown>;
    client.disconnect();
    return { client, options };
  }

  it('configures fail-fast outages: no offline queue, no retried or resent commands, timeouts, reconnect forever', () => {
    const { options } = optionsOf({ mode: 'standalone', url: 'redis://127.0.0.1:1' });
    expect(options).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false, commandTimeout: 2000 });
    const retry = options.retryStrategy as (n: number) => number;
    for (const times of [1, 5, 50, 10_000]) expect(typeof retry(times)).toBe('number');
    expect(retry(10_000)).toBe(2000);
  });

  it('turns a sentinel target into ioredis sentinel options', () => {
    const { client, options } = optionsOf(parseRedisUrl('rediss-sentinel://:pw@127.0.0.1:1,127.0.0.1:2/mymaster?db=1'));
    expect(client).toBeInstanceOf(Redis);
    expect(options).toMatchObject({
      sentinels: [{ host: '127.0.0.1', port: 1 }, { host: '127.0.0.1', port: 2 }],
      name: 'mymaster',
      password: 'pw',
      db: 1,
      enableTLSForSentinelMode: true,
      enableOfflineQueue: false,
    });
  });

  it('turns a cluster target into an ioredis Cluster without an offline queue', () => {
    const { client, options } = optionsOf(parseRedisUrl('redis-cluster://:pw@127.0.0.1:1'));
    expect(client).toBeInstanceOf(Cluster);
    expect(options).toMatchObject({ enableOfflineQueue: false, redisOptions: { password: 'pw', maxRetriesPerRequest: 0, commandTimeout: 2000 } });
  });
});
