import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type GatewayApp } from '../../app.ts';
import { parseConfig } from '../../config/load.ts';
import { silentLogger } from '../../base/logger.ts';
import { NlwebResponseSchema, requestedWireVersion, V054ResponseSchema } from '../../protocol/nlweb/index.ts';
import { scriptedAdapter } from '../../../test/support/scripted-agent.ts';
import { GatewayError } from '../../base/errors.ts';
import { parseJsonObject } from './parse.ts';
import { jsonTooDeep } from '../../protocol/json-depth.ts';

let gw: GatewayApp;
beforeAll(async () => {
  const { config } = parseConfig({ agents: [{ name: 'main', kind: 'scripted' }] }, { adapters: [scriptedAdapter] });
  gw = await createApp(config, { log: silentLogger, adapters: [scriptedAdapter] });
});
afterAll(() => gw.close());

/** Bodies shaped like ask requests but with random values anywhere, plus arbitrary JSON and text. */
const askLike = fc.record(
  {
    query: fc.oneof(fc.record({ text: fc.oneof(fc.string(), fc.anything()), site: fc.anything() }, { requiredKeys: [] }), fc.anything()),
    context: fc.anything(),
    prefer: fc.oneof(fc.record({ streaming: fc.constant(false), response_format: fc.string(), mode: fc.string() }, { requiredKeys: ['streaming'] }), fc.anything()),
    meta: fc.oneof(
      fc.record({ session_context: fc.anything(), version: fc.oneof(fc.constantFrom('0.54', '0.55', 0.54), fc.anything()), api_version: fc.constantFrom('0.54', '0.55') }, { requiredKeys: [] }),
      fc.anything(),
    ),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(askLike.map((b) => JSON.stringify(b)), fc.json(), fc.string());

describe('POST /ask and /await never crash on any input', () => {
  it('answers every body with a valid response in the version it declares (v0.55 unless 0.54) and a 2xx/4xx status', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const res = await gw.app.request('/ask', { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
        expect([200, 202, 400]).toContain(res.status);
        const json = await res.json();
        let declared: unknown;
        try {
          declared = JSON.parse(text);
        } catch {
          declared = undefined;
        }
        const schema = requestedWireVersion(declared) === '0.54' ? V054ResponseSchema : NlwebResponseSchema;
        expect(schema.safeParse(json).success).toBe(true);
        if (res.status === 400) expect(json.error.code).toBe('INVALID_QUERY');
      }),
      { numRuns: 150 },
    );
  });

  it('answers every await body with a failure or a promise state, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json(), fc.record({ promise_token: fc.string(), action: fc.constantFrom('checkin', 'cancel', 'x') })), async (value) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        const res = await gw.app.request('/await', { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
        expect([200, 400]).toContain(res.status);
        expect(NlwebResponseSchema.safeParse(await res.json()).success).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describe('parseJsonObject', () => {
  it('takes exactly the bodies that are JSON objects, and answers any other text with INVALID_QUERY', () => {
    fc.assert(
      fc.property(fc.oneof(body, fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          expected = undefined;
        }
        const isObject = typeof expected === 'object' && expected !== null && !Array.isArray(expected);
        try {
          const raw = parseJsonObject(text, 'ask');
          expect(isObject).toBe(true);
          expect(raw).toStrictEqual(expected);
        } catch (err) {
          expect(err).toBeInstanceOf(GatewayError);
          expect((err as GatewayError).code).toBe('INVALID_QUERY');
          // An object is refused only for its depth (protocol/json-depth.ts).
          if (isObject) expect(jsonTooDeep(text)).toBeTruthy();
        }
      }),
      { numRuns: 500 },
    );
  });
});
