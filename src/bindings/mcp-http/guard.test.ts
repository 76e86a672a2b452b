import { describe, expect, it } from 'vitest';
import { hostnames, rejectUntrusted } from './guard.ts';

const req = (headers: Record<string, string>) => new Request('http://127.0.0.1:8080/mcp', { method: 'POST', headers });

describe('Host/Origin allow-lists (DNS-rebinding protection)', () => {
  it('reduces origins and host:port entries to hostnames', () => {
    expect(hostnames(['http://localhost:6274', 'localhost:8080', '127.0.0.1', '[::1]', 'moz-extension://*'])).toEqual(['localhost', 'localhost', '127.0.0.1', '[::1]', 'moz-extension://*']);
  });

  it('answers 403 for a Host or Origin outside the lists, and lets listed ones and origin-less clients through', async () => {
    const settings = { allowedHosts: ['127.0.0.1'], allowedOrigins: ['http://localhost:6274'] };
    expect(rejectUntrusted(req({ host: '127.0.0.1:8080' }), settings)).toBeUndefined();
    expect(rejectUntrusted(req({ host: '127.0.0.1:8080', origin: 'http://localhost:1234' }), settings)).toBeUndefined();
    const badOrigin = rejectUntrusted(req({ host: '127.0.0.1', origin: 'https://evil.example' }), settings);
    expect(badOrigin?.status).toBe(403);
    expect(((await badOrigin!.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0');
    expect(rejectUntrusted(req({ host: 'evil.example' }), settings)?.status).toBe(403);
    expect(rejectUntrusted(req({ host: 'evil.example', origin: 'null' }), { allowedHosts: [], allowedOrigins: [] })).toBeUndefined();
  });
});
