/**
 * Webtool conformance (webtools draft 2025-06-30 + the decisions in interop.md), run against every
 * agent kind in WEBTOOL_TARGETS through the real gateway over real HTTP. Requirements and the tests
 * that cover them: test/conformance/webtool.requirements.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { catalogAdapter } from '../../adapters/catalog/index.ts';
import { webtoolAdapter } from '../../adapters/webtool/index.ts';
import type { AdapterFactory } from '../../src/core/agent.ts';
import {
  createSchemaCompiler,
  ErrorEnvelopeSchema,
  isSemver,
  OkEnvelopeSchema,
  WebtoolMetadataSchema,
  type SchemaCompiler,
  type WebtoolMetadata,
} from '../../src/protocol/webtool/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { scriptedAdapter } from '../support/scripted-agent.ts';
import { WEBTOOL_TARGETS } from './webtool-targets.ts';

/** Every adapter kind a target may use, once each (whether or not it is registered yet). */
const adapters = [...builtinAdapters, catalogAdapter, webtoolAdapter, scriptedAdapter].filter(
  (a, i, all) => all.findIndex((b) => b.kind === a.kind) === i,
) as AdapterFactory<any>[];

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** Every response must be JSON ("Content Types"): checked on every single call this suite makes. */
async function call(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, init);
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  call(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

function expectError(r: Reply, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(ErrorEnvelopeSchema.safeParse(r.body).success).toBe(true);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.message).toMatch(/\S/);
}

function expectOk(r: Reply): unknown {
  expect(r.status).toBe(200);
  expect(OkEnvelopeSchema.safeParse(r.body).success).toBe(true);
  return r.body.data;
}

for (const makeTarget of WEBTOOL_TARGETS) {
  const target = makeTarget();
  describe(`webtool conformance: ${target.kind} agent`, () => {
    let gw: TestGateway;
    let upstream: { close(): Promise<void> };
    let url: string;
    let metadata: WebtoolMetadata;
    let compile: SchemaCompiler;
    const responseCheck = (action: string) => compile(metadata.actions.find((a) => a.name === action)!.responseSchema, 'data');

    beforeAll(async () => {
      compile = await createSchemaCompiler();
      const setup = await target.setup();
      upstream = setup;
      gw = await startGateway({ server: { bodyLimitBytes: 4096 }, agents: setup.agents }, { adapters });
      url = `${gw.url}/webtools/${target.agent}`;
      metadata = (await call(url)).body;
    });
    afterAll(async () => {
      await gw?.close();
      await upstream?.close();
    });

    describe('metadata', () => {
      it('GET {webtoolUrl} returns name, description, a semantic version, actions, configSchema, defaultConfig', async () => {
        const r = await call(url);
        expect(r.status).toBe(200);
        const m = WebtoolMetadataSchema.parse(r.body);
        expect(m.name).toBe(target.agent);
        expect(isSemver(m.version)).toBe(true);
        const names = m.actions.map((a) => a.name);
        expect(names.slice(0, 2)).toEqual(['ask', 'await']);
        if (target.tool) expect(names).toContain(target.tool.action);
        for (const a of m.actions) expect(a.description).toMatch(/\S/);
      });

      it('every published schema is a JSON Schema that compiles', () => {
        for (const a of metadata.actions) {
          expect(() => compile(a.requestSchema, 'request')).not.toThrow();
          expect(() => compile(a.responseSchema, 'data')).not.toThrow();
        }
        expect(() => compile(metadata.configSchema, 'config')).not.toThrow();
        expect(compile(metadata.configSchema, 'config')(metadata.defaultConfig)).toBeNull();
      });

      it('GET {webtoolUrl}/ (trailing slash) serves the same document', async () => {
        expect((await call(`${url}/`)).body).toEqual(metadata);
      });

      it('GET {webtoolUrl}/{version} with the current version serves the same document', async () => {
        const r = await call(`${url}/${metadata.version}`);
        expect(r.status).toBe(200);
        expect(r.body).toEqual(metadata);
      });

      it('the same version always serves the same document (lock-in)', async () => {
        const again = await call(url);
        expect(again.body.version).toBe(metadata.version);
        expect(again.body).toEqual(metadata);
      });

      it('an unknown semantic version is 404 WEBTOOL_NOT_FOUND with an error envelope', async () => {
        expectError(await call(`${url}/999.0.0`), 404, 'WEBTOOL_NOT_FOUND');
      });

      it('a path segment that is not a semantic version is 404 WEBTOOL_NOT_FOUND', async () => {
        for (const v of ['latest', '1.0', 'v1.0.0', '1.0.0/extra']) expectError(await call(`${url}/${v}`), 404, 'WEBTOOL_NOT_FOUND');
      });

      it('an unknown webtool is 404 WEBTOOL_NOT_FOUND (GET and POST)', async () => {
        expectError(await call(`${gw.url}/webtools/no-such-agent`), 404, 'WEBTOOL_NOT_FOUND');
        expectError(await postJson(`${gw.url}/webtools/no-such-agent`, { action: 'ask', request: target.ask }), 404, 'WEBTOOL_NOT_FOUND');
      });
    });

    describe('execution', () => {
      it('ask answers {status: "ok", data} and data matches the action responseSchema', async () => {
        const data = expectOk(await postJson(url, { action: 'ask', request: target.ask })) as any;
        expect(data._meta.response_type).toBe('answer');
        expect(data.results.length).toBeGreaterThan(0);
        expect(responseCheck('ask')(data)).toBeNull();
      });

      it('version may be omitted; the current version is accepted; an unknown one is 404 WEBTOOL_NOT_FOUND', async () => {
        expectOk(await postJson(url, { version: metadata.version, action: 'ask', request: target.ask }));
        expectError(await postJson(url, { version: '0.0.1', action: 'ask', request: target.ask }), 404, 'WEBTOOL_NOT_FOUND');
      });

      it('sessionId is optional and keeps one conversation across requests', async () => {
        const ask = (sessionId?: string) => postJson(url, { ...(sessionId ? { sessionId } : {}), action: 'ask', request: target.ask });
        const conv = (r: Reply) => (expectOk(r) as any)._meta.session_context.conversation_id as string;
        const a1 = conv(await ask('session-a-0123456789'));
        expect(conv(await ask('session-a-0123456789'))).toBe(a1);
        expect(conv(await ask('session-b-0123456789'))).not.toBe(a1);
        expect(conv(await ask())).not.toBe(a1);
      });

      it('config is merged over defaultConfig and accepted when it matches configSchema', async () => {
        const data = expectOk(await postJson(url, { action: 'ask', config: { ...metadata.defaultConfig, num_results: 1 }, request: target.ask }));
        expect(responseCheck('ask')(data)).toBeNull();
      });

      // Registered only for kinds that have a structured tool fixture (catalog has none).
      if (target.tool) it('a structured action runs and its data matches its responseSchema', async () => {
        const data = expectOk(await postJson(url, { action: target.tool!.action, request: target.tool!.request }));
        expect(responseCheck(target.tool!.action)(data)).toBeNull();
      });

      it('a request carrying Authorization: Bearer is served (the draft is agnostic)', async () => {
        expectOk(await postJson(url, { action: 'ask', request: target.ask }, { authorization: 'Bearer any-token' }));
      });
    });

    describe('errors', () => {
      it('a request that does not match the requestSchema is 400 SCHEMA_ERROR', async () => {
        expectError(await postJson(url, { action: 'ask', request: { query: {} } }), 400, 'SCHEMA_ERROR');
        expectError(await postJson(url, { action: 'await', request: { promise_token: '' } }), 400, 'SCHEMA_ERROR');
        if (target.tool) expectError(await postJson(url, { action: target.tool.action, request: target.tool.badRequest }), 400, 'SCHEMA_ERROR');
      });

      it('an unknown action is 400 SCHEMA_ERROR', async () => {
        expectError(await postJson(url, { action: 'no_such_action', request: {} }), 400, 'SCHEMA_ERROR');
      });

      it('config that does not match the configSchema is 400 CONFIG_ERROR', async () => {
        expectError(await postJson(url, { action: 'ask', config: { apiKey: 'x' }, request: target.ask }), 400, 'CONFIG_ERROR');
        expectError(await postJson(url, { action: 'ask', config: { num_results: 'many' }, request: target.ask }), 400, 'CONFIG_ERROR');
      });

      it('a body that is not an execution request is 400 SCHEMA_ERROR', async () => {
        for (const body of [[], 'ask', { request: {} }, { action: 5 }, { action: 'ask', config: [] }]) {
          expectError(await postJson(url, body), 400, 'SCHEMA_ERROR');
        }
      });

      it('a body that is not JSON is 415', async () => {
        for (const [type, body] of [['text/plain', 'hello'], ['application/x-www-form-urlencoded', 'action=ask'], [undefined, '<xml/>']] as const) {
          const r = await call(url, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
          expectError(r, 415, 'SCHEMA_ERROR');
        }
      });

      it('malformed JSON declared as application/json is 400 SCHEMA_ERROR', async () => {
        expectError(await call(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":' }), 400, 'SCHEMA_ERROR');
      });

      it('a body over the size limit is 413', async () => {
        const r = await postJson(url, { action: 'ask', request: { query: { text: 'x'.repeat(8192) } } });
        expectError(r, 413, 'SCHEMA_ERROR');
      });

      it('methods other than GET and POST are 405 with Allow', async () => {
        for (const method of ['PUT', 'DELETE', 'PATCH']) {
          const r = await call(url, { method });
          expect(r.status).toBe(405);
          expect(r.headers.get('allow')).toBe('GET, POST');
          expect(ErrorEnvelopeSchema.safeParse(r.body).success).toBe(true);
        }
      });

      it('every response is application/json, errors and unknown routes included', async () => {
        // `call` asserts the Content-Type; this visits the routes no other test does.
        expectError(await call(`${gw.url}/webtools/${target.agent}/1.0.0/extra/more`), 404, 'WEBTOOL_NOT_FOUND');
        expectError(await call(`${gw.url}/webtools/${target.agent}`, { method: 'OPTIONS' }), 404, 'WEBTOOL_NOT_FOUND');
        expect((await call(`${gw.url}/webtools`)).body.webtools.map((w: { name: string }) => w.name)).toContain(target.agent);
      });
    });

    // Registered only for kinds with an upstream that can be made to fail (the webtool kind).
    if (target.faults) describe('upstream faults', () => {
      it('an upstream internal error is 500 INTERNAL_ERROR without internals', async () => {
        const r = await postJson(url, { action: target.faults!.internal, request: {} });
        expectError(r, 500, 'INTERNAL_ERROR');
        expect(JSON.stringify(r.body)).not.toMatch(/secret|stack|127\.0\.0\.1/);
      });

      it('an upstream rate limit is 429 RATE_LIMIT with Retry-After', async () => {
        const r = await postJson(url, { action: target.faults!.rateLimit, request: {} });
        expectError(r, 429, 'RATE_LIMIT');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      });

      it('upstream data that breaks its responseSchema is 500 INTERNAL_ERROR, data not leaked', async () => {
        const r = await postJson(url, { action: target.faults!.badData, request: {} });
        expectError(r, 500, 'INTERNAL_ERROR');
        expect(JSON.stringify(r.body)).not.toContain('upstream-internal');
      });
    });
  });
}
