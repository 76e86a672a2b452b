import { describe, expect, it } from 'vitest';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { Gateway } from '../../core/gateway-types.ts';
import { ownerTag } from '../../core/ownership.ts';
import { anonymousPrincipal } from '../../core/principal.ts';
import { failureResponse } from '../../core/responses.ts';
import type { AwaitRequest } from '../../protocol/nlweb/index.ts';
import { MemoryStore } from '../../store/memory.ts';
import type { McpCall } from './call.ts';
import { McpTaskExtension, TASKS_EXTENSION, TASK_EXTENSION_NAMESPACE, declaresTasks, missingTasksExtension, tasksExtensionCapability } from './task-extension.ts';

const call = (era: McpCall['era']): McpCall => ({ agent: undefined, credentials: {}, principal: anonymousPrincipal(undefined), era });
const ctxWith = (caps: unknown) => ({ mcpReq: { envelope: { 'io.modelcontextprotocol/clientCapabilities': caps } } }) as unknown as ServerContext;

describe('tasks extension negotiation (SEP-2663)', () => {
  it('a 2026 request declares the extension only under clientCapabilities.extensions', () => {
    expect(declaresTasks(call('modern'), ctxWith({ extensions: { [TASKS_EXTENSION]: {} } }))).toBe(true);
    expect(declaresTasks(call('modern'), ctxWith({ extensions: {} }))).toBe(false);
    expect(declaresTasks(call('modern'), ctxWith({ tasks: {} }))).toBe(false);
    expect(declaresTasks(call('modern'), ctxWith(undefined))).toBe(false);
  });

  it('2025 sessions never use the extension, nor see it advertised', () => {
    expect(declaresTasks(call('legacy'), ctxWith({ extensions: { [TASKS_EXTENSION]: {} } }))).toBe(false);
    expect(tasksExtensionCapability(call('legacy'))).toEqual({});
    expect(tasksExtensionCapability(call('modern'))).toEqual({ extensions: { [TASKS_EXTENSION]: {} } });
  });

  it('-32021 names the extension in requiredCapabilities', () => {
    const err = missingTasksExtension();
    expect(err.code).toBe(-32021);
    expect(err.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  });
});

describe('McpTaskExtension: a task record under concurrent requests', () => {
  const principal = anonymousPrincipal('127.0.0.1');
  const modern: McpCall = { agent: undefined, credentials: {}, principal, era: 'modern' };
  const asking = (inputRequests: Record<string, unknown>) => ({
    createdAt: new Date().toISOString(),
    ttl: 60_000,
    owner: ownerTag(principal),
    kind: 'tool',
    promise: 'prm_first',
    call: { agent: 'tools', tool: 'multi_input', args: {}, capabilities: {} },
    pending: { inputRequests, answers: {} },
  });
  const stored = async (store: MemoryStore, taskId: string) => JSON.parse((await store.getRecord(TASK_EXTENSION_NAMESPACE, taskId))!) as Record<string, any>;

  /** A core whose next tool round begins only when released (`began` says it was asked for), and whose promise calls are recorded. */
  function heldRound(store: MemoryStore) {
    let release!: () => void;
    let began!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const asked = new Promise<void>((r) => (began = r));
    const awaited: AwaitRequest[] = [];
    const gateway = {
      store,
      callToolAsPromise: async () => (began(), await released, { token: 'prm_next' }),
      await: async (req: AwaitRequest) => (awaited.push(req), failureResponse('CANCELLED', 'The task was cancelled')),
    } as unknown as Gateway;
    return { tasks: new McpTaskExtension(gateway), release, asked, awaited };
  }

  it('a task cancelled while tasks/update begins its next round stays cancelled, and that round is stopped (regression: the update\'s write brought the task back to working)', async () => {
    const store = new MemoryStore();
    await store.putRecord(TASK_EXTENSION_NAMESPACE, 'prm_task1', JSON.stringify(asking({ only: {} })), 60_000);
    const { tasks, release, asked, awaited } = heldRound(store);
    const update = tasks.update('prm_task1', { only: { action: 'accept', content: {} } }, modern);
    await asked;
    expect(await tasks.cancel('prm_task1', modern)).toEqual({});
    release();
    expect(await update).toEqual({});
    expect((await stored(store, 'prm_task1')).final).toMatchObject({ status: 'cancelled' });
    expect(awaited).toContainEqual(expect.objectContaining({ promise_token: 'prm_next', action: 'cancel' }));
    await store.close();
  });

  it('tasks/update calls at once keep each other\'s answers (regression: the later write dropped the earlier one\'s)', async () => {
    const store = new MemoryStore();
    await store.putRecord(TASK_EXTENSION_NAMESPACE, 'prm_task2', JSON.stringify(asking({ a: {}, b: {}, c: {} })), 60_000);
    const { tasks } = heldRound(store);
    await Promise.all([tasks.update('prm_task2', { a: { action: 'accept' } }, modern), tasks.update('prm_task2', { b: { action: 'accept' } }, modern)]);
    expect(Object.keys((await stored(store, 'prm_task2')).pending.answers).sort()).toEqual(['a', 'b']);
    await store.close();
  });

  it('a change to a task that expired meanwhile is not written back', async () => {
    const store = new MemoryStore();
    await store.putRecord(TASK_EXTENSION_NAMESPACE, 'prm_task3', JSON.stringify(asking({ only: {} })), 60_000);
    const { tasks, release, asked } = heldRound(store);
    const update = tasks.update('prm_task3', { only: { action: 'accept' } }, modern);
    await asked;
    await store.deleteRecord(TASK_EXTENSION_NAMESPACE, 'prm_task3');
    release();
    await expect(update).rejects.toMatchObject({ code: -32602 });
    expect(await store.getRecord(TASK_EXTENSION_NAMESPACE, 'prm_task3')).toBeNull();
    await store.close();
  });
});
