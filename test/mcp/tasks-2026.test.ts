/**
 * The MCP tasks extension (io.modelcontextprotocol/tasks, SEP-2663) for 2026-07-28 clients, raw
 * JSON-RPC over real HTTP (the SDK 2.4 client does not speak the extension) against a real gateway
 * in front of the conformance fixture (spawned over stdio, spoken to as 2026-07-28). Create, get,
 * update (input), cancel, -32021, another caller's task id, an expired task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSseText } from '../support/http.ts';
import { REPO_ROOT, startGateway, type TestGateway } from '../support/gateway.ts';
import { alice, bob, type Fetch } from '../support/principals.ts';
import { conformanceConfig } from './conformance.ts';
import { eventually, modernHeaders } from './support.ts';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { elicitation: {}, extensions: { [TASKS]: {} } };

interface Reply {
  status: number;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
}

/** One stateless 2026-07-28 request, with the headers SEP-2243 asks for (Mcp-Name mirrors name/taskId). */
async function rpc(url: string, method: string, params: Record<string, unknown>, caps: Record<string, unknown> = WITH_TASKS, fetch: Fetch = alice): Promise<Reply> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const res = await fetch(url, {
    method: 'POST',
    headers: modernHeaders(method, name),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps } },
    }),
  });
  const text = await res.text();
  const body = (res.headers.get('content-type') ?? '').includes('text/event-stream') ? (parseSseText(text).map((e) => e.data as Record<string, any>).find((m) => m && typeof m === 'object' && 'id' in m) ?? {}) : JSON.parse(text);
  return { status: res.status, ...(body.result ? { result: body.result } : {}), ...(body.error ? { error: body.error } : {}) };
}

async function settled(url: string, taskId: string, fetch: Fetch = alice): Promise<Record<string, any>> {
  let last: Record<string, any> = {};
  await eventually(async () => {
    last = (await rpc(url, 'tasks/get', { taskId }, WITH_TASKS, fetch)).result!;
    return ['completed', 'failed', 'cancelled'].includes(last.status);
  }, 15_000);
  return last;
}

function startFixtureGateway(defaults: Record<string, unknown> = {}): Promise<TestGateway> {
  return startGateway({ ...conformanceConfig('auto'), defaults }, { baseDir: REPO_ROOT });
}

describe('MCP tasks extension (2026-07-28)', () => {
  let gw: TestGateway;
  let url: string;
  beforeAll(async () => {
    gw = await startFixtureGateway();
    url = `${gw.url}/mcp`;
  }, 30_000);
  afterAll(() => gw?.close());

  it('server/discover advertises the extension under capabilities.extensions, not a tasks slot', async () => {
    const { result } = await rpc(url, 'server/discover', {});
    expect(result!.capabilities.extensions[TASKS]).toEqual({});
    expect(result!.capabilities.tasks).toBeUndefined();
  });

  it('creates a task for a task tool, and tasks/get inlines its result once completed', async () => {
    const created = (await rpc(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } })).result!;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number), pollIntervalMs: expect.any(Number) });
    expect(created.taskId).toMatch(/^prm_/);
    const done = await settled(url, created.taskId);
    expect(done).toMatchObject({ status: 'completed', resultType: 'complete', result: { content: [{ type: 'text', text: 'computed' }] } });
  });

  it('the ask tool runs as a task too', async () => {
    const created = (await rpc(url, 'tools/call', { name: 'ask', arguments: { query: { text: 'anything' } } })).result!;
    expect(created.resultType).toBe('task');
    const done = await settled(url, created.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.structuredContent._meta.response_type).toBeDefined();
  });

  it('a task that asks for input is input_required until tasks/update has every answer (regression: multi_input)', async () => {
    const { taskId } = (await rpc(url, 'tools/call', { name: 'multi_input', arguments: {} })).result!;
    let asked: Record<string, any> = {};
    await eventually(async () => {
      asked = (await rpc(url, 'tasks/get', { taskId })).result!;
      return asked.status === 'input_required';
    });
    expect(Object.keys(asked.inputRequests).sort()).toEqual(['first', 'second']);
    expect(asked.inputRequests.first.method).toBe('elicitation/create');
    const ack = (await rpc(url, 'tasks/update', { taskId, inputResponses: { first: { action: 'accept', content: { value: '1' } } } })).result!;
    expect(ack).toMatchObject({ resultType: 'complete' });
    expect(ack.taskId).toBeUndefined();
    const partial = (await rpc(url, 'tasks/get', { taskId })).result!;
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests)).toEqual(['second']);
    await rpc(url, 'tasks/update', { taskId, inputResponses: { second: { action: 'accept', content: { value: '2' } } } });
    expect((await settled(url, taskId)).result.content[0].text).toBe('both answered');
  });

  it('tasks/cancel acks with an empty result, the task ends cancelled, and a second cancel acks again', async () => {
    const { taskId } = (await rpc(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 } })).result!;
    expect((await rpc(url, 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    expect((await settled(url, taskId)).status).toBe('cancelled');
    expect((await rpc(url, 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
  });

  it('without the extension: tasks/* and a required task tool are -32021 naming it; an optional tool runs plainly', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const { error } = await rpc(url, method, { taskId: 'prm_x', inputResponses: {} }, {});
      expect(error?.code).toBe(-32021);
    }
    const required = await rpc(url, 'tools/call', { name: 'failing_job', arguments: {} }, {});
    expect(required.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    const plain = (await rpc(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, {})).result!;
    expect(plain.taskId).toBeUndefined();
    expect(plain.content[0].text).toBe('computed');
  });

  it("another caller's task id is unknown to it (-32602), as is a made-up one", async () => {
    const { taskId } = (await rpc(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 } })).result!;
    expect((await rpc(url, 'tasks/get', { taskId }, WITH_TASKS, bob)).error?.code).toBe(-32602);
    expect((await rpc(url, 'tasks/cancel', { taskId }, WITH_TASKS, bob)).error?.code).toBe(-32602);
    expect((await rpc(url, 'tasks/get', { taskId: 'prm_made_up' })).error?.code).toBe(-32602);
    expect((await rpc(url, 'tasks/get', { taskId })).result!.status).toBe('working');
    await rpc(url, 'tasks/cancel', { taskId });
  });
});

describe('MCP tasks extension: expiry', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startFixtureGateway({ promiseTtlMs: 1000 });
  }, 30_000);
  afterAll(() => gw?.close());

  it('a task expires with its promise: tasks/get answers -32602 after its ttlMs', async () => {
    const url = `${gw.url}/mcp`;
    const created = (await rpc(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } })).result!;
    expect(created.ttlMs).toBe(1000);
    await eventually(async () => (await rpc(url, 'tasks/get', { taskId: created.taskId })).error?.code === -32602, 10_000);
  });
});
