import { describe, expect, it } from 'vitest';
import { McpAdapterConfigSchema, transportOf } from './config.ts';

describe('mcp agent config', () => {
  it('infers the transport and fills defaults', () => {
    const http = McpAdapterConfigSchema.parse({ url: 'https://mcp.example.com/mcp' });
    expect(transportOf(http)).toBe('streamable-http');
    expect(http).toMatchObject({ protocol: 'auto', forward: true, args: [], restart: { maxAttempts: 5, backoffMs: 500 } });
    expect(transportOf(McpAdapterConfigSchema.parse({ command: 'node', args: ['server.js'] }))).toBe('stdio');
  });

  it('rejects what cannot work, with the field named', () => {
    const issues = (raw: unknown) => McpAdapterConfigSchema.safeParse(raw).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues({})).toEqual(['url: a streamable-http MCP agent needs `url`']);
    expect(issues({ transport: 'stdio' })).toEqual(['command: a stdio MCP agent needs `command`']);
    expect(issues({ url: 'https://a/mcp', command: 'node' })).toEqual(['command: give either `url` or `command`, not both']);
    expect(issues({ url: 'ftp://a/mcp' })[0]).toMatch(/^url: url must be an http\(s\) URL/);
    expect(issues({ url: 'https://a/sse', transport: 'sse', protocol: '2026-07-28' })[0]).toMatch(/^protocol:/);
    expect(issues({ url: 'https://a/mcp', protocol: 'newest' })[0]).toMatch(/^protocol:/);
    expect(issues({ url: 'https://a/mcp', tools: [] })[0]).toMatch(/Unrecognized key/);
  });
});
