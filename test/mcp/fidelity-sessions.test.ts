/**
 * Issue 18 item 1, against a real third-party upstream: server-everything over Streamable HTTP,
 * restarted behind the gateway. It answers the old session id with 400 (not 404); the adapter must
 * start a new session, once, and log it at warn level.
 */
import { Writable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { startEverything, type Everything } from './fixtures/everything.ts';
import { connectClient } from './support.ts';

let everything: Everything;
let gw: TestGateway;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  everything = await startEverything();
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  gw = await startGateway({ agents: [{ name: 'everything', kind: 'mcp', url: everything.mcpUrl, protocol: 'legacy' }] }, { log: createLogger('warn', sink) });
}, 30_000);
afterAll(async () => {
  await gw?.close();
  await everything?.close();
});

const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text?: string }>)[0]?.text;

describe('an HTTP upstream that restarts (issue 18 item 1)', () => {
  it('upstream restart answered with 400 "No valid session ID": the next call re-initialises and answers', async () => {
    const client = await connectClient(`${gw.url}/mcp`, '2026-07-28');
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'before' } }))).toBe('Echo: before');
      await everything.restart();
      const after = await client.callTool({ name: 'echo', arguments: { message: 'after' } });
      expect(after.isError).toBeFalsy();
      expect(textOf(after)).toBe('Echo: after');
      expect(logLines.some((l) => l.level === 40 && String(l.msg).includes('no longer knows the session'))).toBe(true);
    } finally {
      await client.close();
    }
  }, 30_000);
});
