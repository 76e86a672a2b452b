import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { createApp, type GatewayApp } from '../../src/app.ts';
import { ConfigError, loadConfigFile, parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { listenApp, type TestServer } from '../support/http.ts';
import { startLegacyServer, type LegacyServer } from './legacy-server.ts';

/** The walk-through of docs/legacy.md, run against config/examples/legacy.yaml and the generation C test server. */
const EXAMPLE = fileURLToPath(new URL('../../config/examples/legacy.yaml', import.meta.url));
let legacy: LegacyServer;
let gw: GatewayApp;
let http: TestServer;

beforeAll(async () => {
  legacy = await startLegacyServer('C');
  const loaded = loadConfigFile(EXAMPLE, { adapters: builtinAdapters, env: { LEGACY_NLWEB_URL: legacy.url } });
  gw = await createApp(loaded.config, { log: silentLogger, baseDir: loaded.baseDir });
  http = await listenApp(gw.app);
});
afterAll(async () => {
  await http?.close();
  await gw?.close();
  await legacy?.close();
});

const postJson = (path: string, body: unknown) =>
  fetch(`${http.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('docs/legacy.md walk-through (config/examples/legacy.yaml)', () => {
  it('POST /ask twice in one conversation: the second turn is decontextualized upstream', async () => {
    const one = (await (await postJson('/ask', { query: { text: 'pumpkin pie' }, prefer: { streaming: false } })).json()) as any;
    const two = (await (await postJson('/ask', { query: { text: 'vegan ones?' }, prefer: { streaming: false }, meta: { session_context: one._meta.session_context } })).json()) as any;
    expect(two._meta.decontextualized_query).toBe('pumpkin pie / vegan ones?');
    expect(legacy.asks().at(-1)!.read!.prev).toEqual(['pumpkin pie']);
  });

  it('an old client GET /ask gets late-2025 frames, and GET /sites the server\'s sites', async () => {
    const text = await (await fetch(`${http.url}/ask?query=pumpkin%20pie&generate_mode=summarize`)).text();
    expect(text.startsWith('data: {"message_type":"begin-nlweb-response"')).toBe(true);
    expect(await (await fetch(`${http.url}/sites`)).json()).toMatchObject({ 'message-type': 'sites', sites: expect.arrayContaining(['seriouseats']) });
  });

  it('a slow answer through the legacy /mcp agent is a promise, then /await answers', async () => {
    const res = await postJson('/agents/legacy-mcp/ask', { query: { text: 'slow roast' }, prefer: { streaming: false } });
    expect(res.status).toBe(202);
    const { promise } = (await res.json()) as { promise: { token: string } };
    const answer = (await (await postJson('/await', { promise_token: promise.token, action: 'checkin', wait_ms: 5000 })).json()) as any;
    expect(answer.results.map((r: { name: string }) => r.name)).toEqual(['slow roast #1', 'slow roast #2']);
  });

  it('a bad nlweb-legacy entry is a config error naming the field', () => {
    const bad = { agents: [{ name: 'x', kind: 'nlweb-legacy', url: 'ftp://old', generation: 'D' }] };
    expect(() => parseConfig(bad, { adapters: builtinAdapters })).toThrow(ConfigError);
    try {
      parseConfig(bad, { adapters: builtinAdapters });
    } catch (err) {
      expect((err as ConfigError).problems.join('\n')).toMatch(/agents\.0\.url: url must be an http\(s\) URL[\s\S]*agents\.0\.generation/);
    }
  });
});
