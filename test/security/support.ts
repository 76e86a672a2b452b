/**
 * Shared parts of the security suite (issue 11): two principals with API keys, anonymous clients
 * from two loopback source addresses, and raw HTTP where a header (Host) must be set by hand.
 */
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { Agent } from 'undici';
import { createLogger, type Logger } from '../../src/base/logger.ts';

export const ALICE_KEY = 'alice-key-4f1c9e2a7b3d8e60';
export const BOB_KEY = 'bob-key-91d2c7a4e8f03b15';

/** The `auth` section: alice may use every agent; bob only `open`, with his own small limit there. */
export const AUTH = {
  apiKeys: [
    { principal: 'alice', key: ALICE_KEY },
    { principal: 'bob', key: BOB_KEY, agents: ['open'] },
  ],
};

const dispatchers = new Map<string, Agent>();

/** fetch from a given loopback source address (127.0.0.1 and 127.0.0.2 are two anonymous clients). */
export function fetchFrom(localAddress: string): (url: string, init?: RequestInit) => Promise<Response> {
  let dispatcher = dispatchers.get(localAddress);
  if (!dispatcher) {
    dispatcher = new Agent({ localAddress });
    dispatchers.set(localAddress, dispatcher);
  }
  const d = dispatcher;
  return (url, init = {}) => fetch(url, { ...init, dispatcher: d } as RequestInit);
}

/** POSTs JSON (declared as JSON) from `localAddress`. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}, localAddress = '127.0.0.1'): Promise<Response> {
  return fetchFrom(localAddress)(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** One raw HTTP exchange (any Host header, any body), answered as status, headers and text. */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A logger whose JSON lines the test can read (the gateway's own pino config, redaction included). */
export function capturingLogger(): { log: Logger; lines: () => Array<Record<string, any>>; text: () => string } {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  const log = createLogger('info', sink as never);
  return {
    log,
    text: () => out,
    lines: () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>),
  };
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
export const MCP_INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'security-suite', version: '1' } },
});
