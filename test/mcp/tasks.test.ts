/**
 * MCP tasks (2025-11-25 "Tasks", experimental) for the `ask` tool, backed by the gateway's promises:
 * raw JSON-RPC over real HTTP, because the SDK 2.4 client refuses task results. Two replicas share
 * one store, as behind a load balancer: a task started on one is read and cancelled on the other.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSseText } from '../support/http.ts';
import { alice, bob, type Fetch } from '../support/principals.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';
import type { TestGateway } from '../support/gateway.ts';
import { eventually, startReplicas } from './support.ts';

const RELATED = 'io.modelcontextprotocol/related-task';
const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface RpcReply {
  result?: Record<string, any>;
  error?: { code: number; message: string };
}

/** A 2025 session spoken by hand: initialize, then one POST per request (JSON or SSE reply). */
class RawSession {
  private next = 1;
  private constructor(
    readonly url: string,
    readonly id: string,
    private readonly headers: Record<string, string>,
    private readonly fetch: Fetch = alice,
  ) {}

  static async open(url: string, protocolVersion = '2025-11-25', headers: Record<string, string> = {}, fetch: Fetch = alice): Promise<{ session: RawSession; init: Record<string, any> }> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...JSON_AND_SSE, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const id = res.headers.get('mcp-session-id');
    expect(id).toBeTruthy();
    const init = await replyOf(res, 0);
    const session = new RawSession(url, id!, { ...headers, 'mcp-protocol-version': protocolVersion }, fetch);
    await fetch(url, { method: 'POST', headers: session.allHeaders(), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    return { session, init: init.result! };
  }

  /** The same session, sent to another replica. */
  on(url: string): RawSession {
    return new RawSession(url, this.id, this.headers, this.fetch);
  }

  private allHeaders(): Record<string, string> {
    return { ...JSON_AND_SSE, ...this.headers, 'mcp-session-id': this.id };
  }

  async rpc(method: string, params: Record<string, unknown> = {}): Promise<RpcReply> {
    const id = this.next++;
    const res = await this.fetch(this.url, { method: 'POST', headers: this.allHeaders(), body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
    expect(res.status).toBe(200);
    return replyOf(res, id);
  }
}

async function replyOf(res: Response, id: number): Promise<RpcReply> {
  const text = await res.text();
  const messages = (res.headers.get('content-type') ?? '').includes('text/event-stream') ? parseSseText(text).map((e) => e.data) : [JSON.parse(text)];
  const reply = messages.find((m: any) => m && m.id === id) as RpcReply | undefined;
  expect(reply, `a reply to request ${id} in ${text}`).toBeDefined();
  return reply!;
}

const askTask = (s: RawSession, text: string, task: Record<string, unknown> = { ttl: 60_000 }) =>
  s.rpc('tools/call', { name: 'ask', arguments: { query: { text } }, task });

let a: TestGateway;
let b: TestGateway;
beforeAll(async () => {
  [a, b] = await startReplicas({ agents: [{ name: 'slowpoke', kind: 'scripted' }] });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});
beforeEach(() => {
  scriptedCalls.length = 0;
});

describe('MCP tasks for ask (2025-11-25)', () => {
  it('advertises tasks for tools/call and cancel, and ask (only ask) declares taskSupport optional', async () => {
    const { session, init } = await RawSession.open(`${a.url}/mcp`);
    expect(init.capabilities.tasks).toEqual({ requests: { tools: { call: {} } }, cancel: {} });
    const tools = (await session.rpc('tools/list')).result!.tools as Array<Record<string, any>>;
    expect(tools.find((t) => t.name === 'ask')!.execution).toEqual({ taskSupport: 'optional' });
    for (const t of tools.filter((t) => t.name !== 'ask')) expect(t.execution).toBeUndefined();
  });

  it('offers no tasks to a 2025-06-18 session (tasks arrived in 2025-11-25)', async () => {
    const { session, init } = await RawSession.open(`${a.url}/mcp`, '2025-06-18');
    expect(init.capabilities.tasks).toBeUndefined();
    const tools = (await session.rpc('tools/list')).result!.tools as Array<Record<string, any>>;
    expect(tools.find((t) => t.name === 'ask')!.execution).toBeUndefined();
    expect((await session.rpc('tasks/get', { taskId: 'prm_x' })).error?.code).toBe(-32601);
  });

  it('answers a task-augmented ask with a working task, then tasks/get goes working → completed', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    const created = await askTask(session, 'slow:300 count:2');
    const task = created.result!.task;
    expect(task).toMatchObject({ status: 'working', ttl: expect.any(Number), pollInterval: expect.any(Number) });
    expect(task.taskId).toMatch(/^prm_[A-Za-z0-9_-]{22,}$/);
    expect(Date.parse(task.createdAt)).not.toBeNaN();
    expect(Date.parse(task.lastUpdatedAt)).not.toBeNaN();

    const first = await session.rpc('tasks/get', { taskId: task.taskId });
    expect(first.result).toMatchObject({ taskId: task.taskId, status: 'working', createdAt: task.createdAt });
    expect(first.result!.statusMessage).toEqual(expect.any(String));

    let last: Record<string, any> = {};
    await eventually(async () => {
      last = (await session.rpc('tasks/get', { taskId: task.taskId })).result!;
      return last.status !== 'working';
    });
    expect(last.status).toBe('completed');
    expect(Date.parse(last.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(task.createdAt));
  });

  it('tasks/result waits for the answer and returns the ask result with related-task _meta', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    const taskId = (await askTask(session, 'slow:300 count:2')).result!.task.taskId as string;
    const started = Date.now();
    const got = await session.rpc('tasks/result', { taskId });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150); // it blocked until the agent answered
    const result = got.result!;
    expect(result._meta[RELATED]).toEqual({ taskId });
    expect(result._meta.response_type).toBe('answer');
    // The same result the synchronous ask gives: the conversation rides along.
    expect(result._meta.session_context.conversation_id).toEqual(expect.any(String));
    expect(result.structuredContent._meta.session_context).toEqual(result._meta.session_context);
    expect(result.structuredContent.results).toHaveLength(2);
    expect(result.content[0].type).toBe('text');
    expect(result.isError).toBeUndefined();
    expect((await session.rpc('tasks/get', { taskId })).result!.status).toBe('completed');
  });

  it('a failing ask ends as a failed task whose result has isError', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    const taskId = (await askTask(session, 'slow:50 fail')).result!.task.taskId as string;
    const result = (await session.rpc('tasks/result', { taskId })).result!;
    expect(result.isError).toBe(true);
    expect(result._meta[RELATED]).toEqual({ taskId });
    expect((await session.rpc('tasks/get', { taskId })).result!.status).toBe('failed');
  });

  it('tasks/cancel of a running task answers cancelled and aborts the agent call', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    const taskId = (await askTask(session, 'slow:5000 count:1')).result!.task.taskId as string;
    await eventually(() => scriptedCalls.length === 1);
    const cancelled = await session.rpc('tasks/cancel', { taskId });
    expect(cancelled.result).toMatchObject({ taskId, status: 'cancelled' });
    await eventually(() => scriptedCalls[0]!.aborted);
    expect((await session.rpc('tasks/get', { taskId })).result!.status).toBe('cancelled');
    // Tasks: cancelling a task already terminal is -32602.
    expect((await session.rpc('tasks/cancel', { taskId })).error?.code).toBe(-32602);
  });

  it('cancelling a completed task is -32602 and leaves it completed', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    const taskId = (await askTask(session, 'count:1')).result!.task.taskId as string;
    await session.rpc('tasks/result', { taskId });
    const reply = await session.rpc('tasks/cancel', { taskId });
    expect(reply.error?.code).toBe(-32602);
    expect((await session.rpc('tasks/get', { taskId })).result!.status).toBe('completed');
  });

  it('another replica answers tasks/get, tasks/result and tasks/cancel for a task started elsewhere', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    const onB = session.on(`${b.url}/mcp`);
    const done = (await askTask(session, 'slow:200 count:3')).result!.task.taskId as string;
    expect((await onB.rpc('tasks/get', { taskId: done })).result!.status).toBe('working');
    const result = (await onB.rpc('tasks/result', { taskId: done })).result!;
    expect(result.structuredContent.results).toHaveLength(3);

    const running = (await askTask(session, 'slow:5000')).result!.task.taskId as string;
    await eventually(() => scriptedCalls.some((c) => c.request.query.text === 'slow:5000'));
    expect((await onB.rpc('tasks/cancel', { taskId: running })).result!.status).toBe('cancelled');
    await eventually(() => scriptedCalls.find((c) => c.request.query.text === 'slow:5000')!.aborted);
  });

  it('an unknown task id is -32602 for tasks/get, tasks/result and tasks/cancel', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const reply = await session.rpc(method, { taskId: 'prm_AAAAAAAAAAAAAAAAAAAAAA' });
      expect(reply.error?.code, method).toBe(-32602);
      expect(reply.error?.message).toMatch(/task/i);
    }
    expect((await session.rpc('tasks/get', {})).error?.code).toBe(-32602);
  });

  it('a task is bound to the principal that created it: another caller gets the unknown-task error', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`, '2025-11-25');
    const taskId = (await askTask(session, 'count:1')).result!.task.taskId as string;
    expect((await session.rpc('tasks/get', { taskId })).result!.taskId).toBe(taskId);
    const { session: other } = await RawSession.open(`${a.url}/mcp`, '2025-11-25', {}, bob);
    const unknown = await other.rpc('tasks/get', { taskId: 'prm_never-issued-token-000000' });
    expect(unknown.error?.code).toBe(-32602);
    expect((await other.rpc('tasks/get', { taskId })).error).toEqual(unknown.error);
  });

  it('refuses a task-augmented call of a tool without taskSupport (-32601), and bad ask arguments (-32602)', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    expect((await session.rpc('tools/call', { name: 'await', arguments: { promise_token: 'prm_x', action: 'checkin' }, task: {} })).error?.code).toBe(-32601);
    expect((await session.rpc('tools/call', { name: 'ask', arguments: { query: {} }, task: {} })).error?.code).toBe(-32602);
  });

  it('a 2026-07-28 request has no tasks in core: params.task is ignored and the ask answers at once', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const res = await fetch(`${a.url}/mcp`, {
      method: 'POST',
      headers: { ...JSON_AND_SSE, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ask' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', arguments: { query: { text: 'count:2' } }, task: {}, _meta: meta } }),
    });
    const result = (await replyOf(res, 7)).result!;
    expect(result.task).toBeUndefined();
    expect(result.structuredContent.results).toHaveLength(2);
  });

  it('without params.task the same ask stays synchronous', async () => {
    const { session } = await RawSession.open(`${a.url}/mcp`);
    const result = (await session.rpc('tools/call', { name: 'ask', arguments: { query: { text: 'slow:100 count:2' } } })).result!;
    expect(result.task).toBeUndefined();
    expect(result.structuredContent.results).toHaveLength(2);
  });
});
