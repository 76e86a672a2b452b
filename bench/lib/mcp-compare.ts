/**
 * MCP `tools/call` through nlgate next to the same MCP server behind `mcp-proxy` (the npm package
 * people use to put a stdio server on HTTP): both front the test fixture stdio server
 * (test/mcp/fixtures/stdio-server.ts) and are driven with the same `tools/call search`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './nginx.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
export const FIXTURE = { command: process.execPath, args: ['--import', 'tsx', 'test/mcp/fixtures/stdio-server.ts'] };

export interface McpTarget {
  url: string;
  stop(): Promise<void>;
}

/** Starts `mcp-proxy` (streamable HTTP only) in front of the fixture; resolves when it answers. */
export async function startMcpProxy(): Promise<McpTarget> {
  const port = await freePort();
  const child: ChildProcess = spawn(join(ROOT, 'node_modules/.bin/mcp-proxy'), ['--port', String(port), '--host', '127.0.0.1', '--server', 'stream', '--', FIXTURE.command, ...FIXTURE.args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d).slice(-2000)));
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`mcp-proxy exited: ${err}`);
    const up = await fetch(url, { method: 'GET' }).then(() => true, () => false);
    if (up) break;
    if (i > 200) throw new Error(`mcp-proxy did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    },
  };
}

function join(a: string, b: string): string {
  return a.endsWith('/') ? a + b : `${a}/${b}`;
}

async function rpc(url: string, body: unknown, headers: Record<string, string>): Promise<{ headers: Headers; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  return { headers: res.headers, text: await res.text() };
}

/**
 * Opens a session (initialize + initialized) and finds the tool that fronts the fixture's `search`;
 * returns the headers and body of a `tools/call` to replay under load.
 */
export async function toolCallSpec(url: string): Promise<{ headers: Record<string, string>; body: string }> {
  const init = await rpc(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }, {});
  const session = init.headers.get('mcp-session-id');
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(session ? { 'mcp-session-id': session } : {}) };
  await rpc(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  const listed = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, headers);
  const names = [...listed.text.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]!);
  const name = names.find((n) => n === 'search' || n.endsWith('__search'));
  if (!name) throw new Error(`no search tool at ${url}: ${listed.text.slice(0, 300)}`);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: { query: 'pasta' } } });
  const check = await rpc(url, JSON.parse(body), headers);
  if (!check.text.includes('"result"')) throw new Error(`tools/call failed at ${url}: ${check.text.slice(0, 300)}`);
  return { headers: { 'content-type': 'application/json', ...headers }, body };
}
