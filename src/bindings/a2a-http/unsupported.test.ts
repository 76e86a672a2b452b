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

const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}) => {
  const res = await gw.app.request('/a2a/main', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  return (await res.json()) as { id: unknown; error?: { code: number; message: string } };
};

describe('what the A2A binding declines, with A2A 1.0 errors (§3.3.2, §5.4)', () => {
  it('push notification configs are PushNotificationNotSupported (-32003)', async () => {
    const r = await rpc('CreateTaskPushNotificationConfig', { taskId: 't', url: 'http://127.0.0.1:9/hook' });
    expect(r).toMatchObject({ id: 7, error: { code: -32003 } });
    const rest = await gw.app.request('/a2a/main/rest/tasks/t/pushNotificationConfigs', { method: 'GET' });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { error: { status: string } }).error.status).toBe('FAILED_PRECONDITION');
  });

  it('ListTasks is UnsupportedOperation (-32004); the extended card is not configured (-32007)', async () => {
    expect((await rpc('ListTasks', {})).error?.code).toBe(-32004);
    expect((await rpc('GetExtendedAgentCard', {})).error?.code).toBe(-32007);
  });

  it('an A2A version other than 1.x is VersionNotSupported (-32009); no header is taken as 1.0', async () => {
    expect((await rpc('GetTask', { id: 'task_x' }, { 'A2A-Version': '0.3' })).error?.code).toBe(-32009);
    expect((await rpc('GetTask', { id: 'task_x' })).error?.code).toBe(-32001);
  });

  it('an unknown method is method-not-found (-32601)', async () => {
    expect((await rpc('message/send', {})).error?.code).toBe(-32601);
  });

  it('file parts are ContentTypeNotSupported (-32005); a short client contextId is invalid params (-32602)', async () => {
    const file = await rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'see' }, { url: 'http://127.0.0.1:9/x.png' }] } });
    expect(file.error?.code).toBe(-32005);
    const short = await rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', contextId: 'abc', parts: [{ text: 'hi' }] } });
    expect(short.error?.code).toBe(-32602);
    expect(short.error?.message).toMatch(/contextId/);
  });
});
