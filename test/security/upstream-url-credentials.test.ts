/**
 * Regression (issue 11, "the MCP adapter logs a URL's password"): a password in an agent's URL is
 * used (as Basic credentials, to that origin only) but never appears in a log line, an error
 * message or a diagnostics event, for any HTTP adapter.
 */
import { Writable } from 'node:stream';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { loadAdapters } from '../../src/core/agent.ts';
import type { Agent, CallContext } from '../../src/core/agent.ts';
import { createLogger, type Logger } from '../../src/base/logger.ts';
import { redactUrlCredentials } from '../../src/core/upstream/index.ts';
import type { UpstreamExchange } from '../../src/core/upstream-events.ts';
import { startScripted, type RecordingServer } from '../upstream/servers.ts';

const PASSWORD = 'hunter2-b7e9q';

/** A pino logger at debug level whose JSON lines are kept in `lines`. */
function capturingLogger(): { log: Logger; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { log: createLogger('debug', sink), text: () => chunks.join('') };
}

let upstream: RecordingServer;
beforeAll(async () => {
  upstream = await startScripted(() => ({ status: 500, body: 'upstream failure' }));
});
afterAll(async () => upstream?.close());

function build(kind: string, raw: Record<string, unknown>, log: Logger): Agent {
  const factory = builtinAdapters.find((a) => a.kind === kind)!;
  const config = factory.configSchema.parse(raw) as Record<string, unknown>;
  return factory.create({ ...config, name: `pw-${kind}`, kind, timeoutMs: 5_000 }, { log, baseDir: '.' });
}

// Every kind built by hand here: the lazy kinds (mcp, a2a) load their implementation first, as the gateway does.
beforeAll(() => loadAdapters(builtinAdapters, builtinAdapters));

const withPassword = (path = '') => `http://svc:${PASSWORD}@127.0.0.1:${upstream.port}${path}`;
const deadPort = (path = '') => `http://svc:${PASSWORD}@127.0.0.1:9${path}`;

describe('URL credentials never logged', () => {
  for (const [kind, path, dead] of [
    ['mcp', '/mcp', false],
    ['mcp', '/mcp', true],
    ['nlweb', '', false],
    ['nlweb', '', true],
    ['nlip', '', false],
    ['nlweb-legacy', '', false],
    ['webtool', '/tool', false],
  ] as const) {
    it(`${kind} at ${dead ? 'a closed port' : 'a failing server'}: no log line, error or event shows the password`, async () => {
      const url = dead ? deadPort(path) : withPassword(path);
      const { log, text } = capturingLogger();
      const seen: UpstreamExchange[] = [];
      const onRequest = (m: unknown) => seen.push(m as UpstreamExchange);
      subscribe('nlgate:upstream:request', onRequest);
      const raw: Record<string, unknown> = { url, ...(kind === 'mcp' ? { restart: { maxAttempts: 0, backoffMs: 1 } } : {}) };
      const agent = build(kind, raw, log);
      const ctx: CallContext = { signal: AbortSignal.timeout(10_000), requestId: 'req-pw', log };
      let message = '';
      try {
        if (kind === 'webtool') await agent.describe();
        else for await (const _ of agent.ask({ query: { text: 'q' } } as never, ctx)) void _;
      } catch (err) {
        message = `${String(err)} ${JSON.stringify(err)} ${String((err as Error).cause ?? '')}`;
      } finally {
        unsubscribe('nlgate:upstream:request', onRequest);
        await agent.close?.();
      }
      // The failure was logged (so the check below looks at real lines), without the password.
      if (kind === 'mcp') expect(text()).toContain('could not connect to the MCP server');
      expect(text()).not.toContain(PASSWORD);
      expect(message).not.toContain(PASSWORD);
      for (const exchange of seen) expect(exchange.url).not.toContain(PASSWORD);
    });
  }

  it('the URL user-info reaches its own origin as Basic credentials (RFC 7617), never in the request line', async () => {
    const { log } = capturingLogger();
    upstream.seen.length = 0;
    const agent = build('nlweb', { url: withPassword(), streaming: false }, log);
    const ctx: CallContext = { signal: AbortSignal.timeout(10_000), requestId: 'req-pw', log };
    await (async () => {
      for await (const _ of agent.ask({ query: { text: 'q' } } as never, ctx)) void _;
    })().catch(() => undefined);
    expect(upstream.seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`svc:${PASSWORD}`).toString('base64')}`);
    expect(upstream.seen[0]!.url).toBe('/ask');
  });

  it('redactUrlCredentials strips user-info from every URL in a text', () => {
    expect(redactUrlCredentials(`fetch http://a:${PASSWORD}@h:1/x failed, then https://b@h/y`)).toBe('fetch http://h:1/x failed, then https://h/y');
  });
});
