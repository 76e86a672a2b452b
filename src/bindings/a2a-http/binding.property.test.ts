import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type GatewayApp } from '../../app.ts';
import { parseConfig } from '../../config/load.ts';
import { silentLogger } from '../../base/logger.ts';
import { scriptedAdapter } from '../../../test/support/scripted-agent.ts';

let gw: GatewayApp;
beforeAll(async () => {
  const { config } = parseConfig({ agents: [{ name: 'main', kind: 'scripted' }] }, { adapters: [scriptedAdapter] });
  gw = await createApp(config, { log: silentLogger, adapters: [scriptedAdapter] });
});
afterAll(() => gw.close());

const message = fc.record(
  {
    messageId: fc.oneof(fc.uuid(), fc.anything()),
    role: fc.oneof(fc.constant('ROLE_USER'), fc.anything()),
    parts: fc.oneof(fc.array(fc.oneof(fc.record({ text: fc.string() }), fc.record({ data: fc.jsonValue() }), fc.anything()), { maxLength: 4 }), fc.anything()),
    taskId: fc.oneof(fc.string(), fc.anything()),
    contextId: fc.oneof(fc.string(), fc.anything()),
  },
  { requiredKeys: [] },
);
const rpc = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.anything()),
    id: fc.oneof(fc.integer(), fc.string(), fc.anything()),
    method: fc.oneof(fc.constantFrom('SendMessage', 'GetTask', 'CancelTask', 'ListTasks', 'GetExtendedAgentCard', 'CreateTaskPushNotificationConfig'), fc.anything()),
    params: fc.oneof(fc.record({ message }, { requiredKeys: [] }), fc.record({ id: fc.anything() }, { requiredKeys: [] }), fc.anything()),
  },
  { requiredKeys: [] },
);

describe('the A2A binding answers any input with A2A errors, never a crash', () => {
  it('JSON-RPC: every body gets HTTP 200 and a JSON-RPC 2.0 response (result or error with an integer code)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(rpc.map((b) => JSON.stringify(b)), fc.json(), fc.string()), async (text) => {
        const res = await gw.app.request('/a2a/main', { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
        expect(res.status).toBe(200);
        const json = (await res.json()) as { jsonrpc: string; result?: unknown; error?: { code: number; message: string } };
        expect(json.jsonrpc).toBe('2.0');
        if (json.error) {
          expect(Number.isInteger(json.error.code)).toBe(true);
          expect(json.error.message).not.toMatch(/\.ts:\d+|TypeError|Cannot read/);
        } else expect(json.result).toBeDefined();
      }),
      { numRuns: 120 },
    );
  });

  it('HTTP+JSON: every message:send body gets a task (200) or the §11.6 error body with a 4xx status', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.record({ message }, { requiredKeys: [] }).map((b) => JSON.stringify(b)), fc.json(), fc.string()), async (text) => {
        const res = await gw.app.request('/a2a/main/rest/message:send', { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
        const json = (await res.json()) as { task?: unknown; error?: { code: number; status: string; message: string } };
        if (res.status === 200) expect(json.task).toBeDefined();
        else {
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(json.error?.code).toBe(res.status);
          expect(json.error?.message).not.toMatch(/\.ts:\d+|TypeError|Cannot read/);
        }
      }),
      { numRuns: 120 },
    );
  });

  it('regression: a non-JSON content type is ContentTypeNotSupported, not a parse attempt', async () => {
    const res = await gw.app.request('/a2a/main', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32005);
  });

  it('an unknown agent is a plain 404 on every A2A route', async () => {
    for (const path of ['/a2a/nobody', '/a2a/nobody/rest/message:send', '/a2a/nobody/.well-known/agent-card.json']) {
      const get = path.endsWith('.json');
      const res = await gw.app.request(path, get ? { method: 'GET' } : { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(404);
    }
  });
});
