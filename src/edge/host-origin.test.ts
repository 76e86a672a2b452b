import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHostOriginPolicy, isLoopback } from './host-origin.ts';

const base = { allowedHosts: [], allowedOrigins: [], corsOrigins: [] };

describe('Host and Origin policy', () => {
  it('on loopback by default: only the loopback names with the port actually listened on', () => {
    const p = createHostOriginPolicy({ ...base, listenHost: '127.0.0.1' });
    expect(p.active).toBe(true);
    const check = (host?: string, origin?: string) => p.check({ host, origin, localPort: 8080 });
    expect(check('127.0.0.1:8080')).toBeUndefined();
    expect(check('localhost:8080', 'http://localhost:8080')).toBeUndefined();
    expect(check('[::1]:8080')).toBeUndefined();
    expect(check('evil.example:8080')).toMatch(/Host/);
    expect(check('localhost:9090')).toMatch(/Host/);
    expect(check(undefined)).toMatch(/Host/);
    // Regression (issue 11): the Origin check ignored the port.
    expect(check('localhost:8080', 'http://localhost:9090')).toMatch(/Origin/);
    expect(check('localhost:8080', 'https://evil.example')).toMatch(/Origin/);
    expect(check('localhost:8080', 'null')).toMatch(/Origin/);
    // In-process requests (no socket) have nothing to compare against.
    expect(p.check({ host: 'localhost', origin: undefined, localPort: undefined })).toBeUndefined();
  });

  it('configured lists: bare host names match any port, host:port only that port, origins with their port', () => {
    const p = createHostOriginPolicy({ ...base, listenHost: '0.0.0.0', allowedHosts: ['gw.example', 'api.example:8443'], allowedOrigins: ['http://localhost:6274', 'moz-extension://*'] });
    const check = (host?: string, origin?: string) => p.check({ host, origin, localPort: 8080 });
    expect(check('gw.example:443')).toBeUndefined();
    expect(check('api.example:8443')).toBeUndefined();
    expect(check('api.example:9000')).toMatch(/Host/);
    expect(check('gw.example', 'http://localhost:6274')).toBeUndefined();
    expect(check('gw.example', 'http://localhost:6275')).toMatch(/Origin/);
    expect(check('gw.example', 'moz-extension://abc')).toBeUndefined();
    expect(check('gw.example', 'https://gw.example')).toBeUndefined();
  });

  it('CORS origins are allowed callers; without lists and off loopback nothing is checked', () => {
    const cors = createHostOriginPolicy({ ...base, listenHost: '127.0.0.1', corsOrigins: ['https://shop.example'] });
    expect(cors.check({ host: 'localhost:1', origin: 'https://shop.example', localPort: 1 })).toBeUndefined();
    const open = createHostOriginPolicy({ ...base, listenHost: '0.0.0.0' });
    expect(open.active).toBe(false);
    expect(open.check({ host: 'anything', origin: 'https://evil.example', localPort: 1 })).toBeUndefined();
  });

  it('knows loopback listen addresses', () => {
    expect(['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1'].some(isLoopback)).toBe(false);
  });

  it('never throws on any Host or Origin value, and refuses every Host that is not a loopback name with the port', () => {
    const p = createHostOriginPolicy({ ...base, listenHost: '127.0.0.1', allowedOrigins: ['http://localhost:6274'] });
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 60 }), { nil: undefined }), fc.option(fc.oneof(fc.webUrl(), fc.string({ maxLength: 40 })), { nil: undefined }), (host, origin) => {
        const verdict = p.check({ host, origin, localPort: 8080 });
        const loopbackHost = host !== undefined && /^(localhost|127\.0\.0\.1|\[::1\]):8080$/i.test(host.trim());
        if (!loopbackHost) expect(verdict).toMatch(/Host/);
      }),
    );
  });
});
