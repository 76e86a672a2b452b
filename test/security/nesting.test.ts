/**
 * Issue 24, hole 4: a body nested thousands of levels deep is refused on every inbound JSON route
 * in that protocol's own error shape, as the client's mistake (never -32603 / 500, never a
 * RangeError logged at error level), before any recursive walk can overflow the stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { capturingLogger } from './support.ts';

/** `{"a":{"a":...{"a":1}}}`, `levels` deep, as text (JSON.stringify of such a value would itself recurse). */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const DEEP = 5_000;

let gw: TestGateway;
const cap = capturingLogger();
beforeAll(async () => {
  gw = await startGateway({ agents: [{ name: 'recipes', kind: 'catalog', file: 'examples/catalog/recipes.jsonl' }] }, { log: cap.log });
});
afterAll(() => gw.close());

const send = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ask' };

describe('regression "5,000 levels of A2A metadata answer -32603 and log a RangeError" (issue 24, hole 4)', () => {
  it('A2A JSON-RPC SendMessage: a malformed-request error, not an internal one', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"soup"}],"metadata":${nested(DEEP)}}}}`;
    const res = await send('/a2a/recipes', body, { 'a2a-version': '1.0' });
    const reply = (await res.json()) as { error?: { code: number; message: string } };
    expect(reply.error?.code).not.toBe(-32603);
    expect([-32600, -32602]).toContain(reply.error?.code);
    expect(reply.error?.message).toMatch(/deep|nest/i);
  });

  it('A2A HTTP+JSON message:send: 400 in A2A shape', async () => {
    const body = `{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"soup"}],"metadata":${nested(DEEP)}}}`;
    const res = await send('/a2a/recipes/rest/message:send', body, { 'a2a-version': '1.0' });
    expect(res.status).toBe(400);
  });

  it('NLWeb /ask, NLIP, webtools and MCP answer their own client error too', async () => {
    const ask = await send('/ask', `{"query":{"text":"pasta"},"meta":${nested(DEEP)}}`);
    expect(ask.status).toBe(400);
    expect(((await ask.json()) as { error: { code: string } }).error.code).toBe('INVALID_QUERY');

    const nlip = await send('/nlip/', `{"format":"text","subformat":"english","content":"soup","submessages":[{"format":"structured","subformat":"json","content":${nested(DEEP)}}]}`);
    expect(nlip.status).toBe(400);

    const webtool = await send('/webtools/recipes', `{"action":"ask","request":{"query":{"text":"soup"}},"config":${nested(DEEP)}}`);
    expect(webtool.status).toBeLessThan(500);
    expect(((await webtool.json()) as { status: string }).status).toBe('error');

    const mcp = await send('/mcp', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":{"text":"soup"},"x":${nested(DEEP)}}}}`, MCP_HEADERS);
    const mcpReply = (await mcp.json()) as { error?: { code: number } };
    expect(mcpReply.error?.code).not.toBe(-32603);
  });

  it('logged nothing at error level and no stack trace for any of them', () => {
    const errors = cap.lines().filter((l) => (l.level as number) >= 50);
    expect(errors, JSON.stringify(errors).slice(0, 500)).toEqual([]);
    expect(cap.text()).not.toMatch(/Maximum call stack|RangeError/);
  });
});
