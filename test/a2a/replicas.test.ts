import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Client } from '@a2a-js/sdk/client';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { spawnGateway, type GatewayProcess } from '../support/process.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { a2aClient, asTask, collect, finalState, send, userMessage, TaskState } from './support.ts';

/**
 * Issue 15: A2A tasks live in the shared store, so two gateway processes on one real Redis are one
 * A2A agent: a task sent to one replica is read, followed and cancelled on the other. Callers are
 * anonymous principals by client address (issue 11): "alice" connects from 127.0.0.1, "bob" from
 * 127.0.0.2, and bob can neither see nor touch alice's tasks or contexts on any replica.
 */
describeRedis('A2A across two replicas sharing one Redis', () => {
  let redis: RedisServer;
  let upstream: Awaited<ReturnType<typeof startV055Agent>>;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const bobDispatcher = new Agent({ localAddress: '127.0.0.2' });
  const bobFetch = ((input: RequestInfo | URL, init?: RequestInit) => undiciFetch(input as string, { ...(init as object), dispatcher: bobDispatcher })) as unknown as typeof fetch;
  const clients = {} as Record<'aliceA' | 'aliceB' | 'bobA' | 'bobB', Client>;

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startV055Agent({ slowMs: 1500 });
    const config = {
      store: { kind: 'redis', url: redis.url, prefix: 'a2a-replicas:' },
      defaults: { promiseAfterMs: 200, leaseMs: 600 },
      agents: [{ name: 'recipes', kind: 'nlweb', url: upstream.url, streaming: true }],
    };
    [a, b] = await Promise.all([spawnGateway(config), spawnGateway(config)]);
    clients.aliceA = await a2aClient(`${a.url}/a2a/recipes/`);
    clients.aliceB = await a2aClient(`${b.url}/a2a/recipes/`, 'HTTP+JSON');
    clients.bobA = await a2aClient(`${a.url}/a2a/recipes/`, 'JSONRPC', {}, bobFetch);
    clients.bobB = await a2aClient(`${b.url}/a2a/recipes/`, 'HTTP+JSON', {}, bobFetch);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await upstream?.close();
    await redis?.stop();
    await bobDispatcher.close();
  });

  it('a task sent on one replica is followed to COMPLETED with GetTask on the other', async () => {
    const task = asTask(await clients.aliceA.sendMessage(send(userMessage('slow paella'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await expect
      .poll(async () => (await clients.aliceB.getTask({ id: task.id, tenant: '' })).status?.state, { timeout: 10_000, interval: 200 })
      .toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('CancelTask on the other replica cancels; both replicas then say CANCELED', async () => {
    const task = asTask(await clients.aliceA.sendMessage(send(userMessage('slow biryani'))));
    const cancelled = await clients.aliceB.cancelTask({ id: task.id, tenant: '', metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await clients.aliceA.getTask({ id: task.id, tenant: '' })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('SubscribeToTask on the other replica follows the task to its end', async () => {
    const task = asTask(await clients.aliceA.sendMessage(send(userMessage('slow pho'))));
    const events = await collect(clients.aliceB.resubscribeTask({ id: task.id, tenant: '' }));
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a streamed task is cancelled from the other replica (store pub/sub reaches the stream)', async () => {
    const stream = clients.aliceA.sendMessageStream(send(userMessage('slow ramen')));
    const first = await stream.next();
    const taskId = (first.value?.payload?.value as { id: string }).id;
    const cancelled = await clients.aliceB.cancelTask({ id: taskId, tenant: '', metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest = await collect(stream);
    expect(finalState(rest)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('multi-turn: a context started on one replica continues on the other', async () => {
    const first = asTask(await clients.aliceA.sendMessage(send(userMessage('dumplings'))));
    await clients.aliceB.sendMessage(send(userMessage('steamed ones', { contextId: first.contextId })));
    expect(upstream.received.at(-1)?.body).toMatchObject({ query: { text: 'steamed ones' }, context: { prev: ['dumplings'] } });
  });

  it('another caller gets "task not found" for the task on every replica, and a new context for its contextId', async () => {
    const task = asTask(await clients.aliceA.sendMessage(send(userMessage('slow lasagne'))));
    for (const bob of [clients.bobA, clients.bobB]) {
      await expect(bob.getTask({ id: task.id, tenant: '' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
      await expect(bob.cancelTask({ id: task.id, tenant: '', metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
      await expect(collect(bob.resubscribeTask({ id: task.id, tenant: '' }))).rejects.toMatchObject({ name: 'TaskNotFoundError' });
      await expect(bob.sendMessage(send(userMessage('more', { taskId: task.id })))).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    }
    // Bob names Alice's context: for him it is a new one, so Alice's previous query never reaches the upstream.
    await clients.bobB.sendMessage(send(userMessage('bob asks', { contextId: task.contextId })));
    expect(upstream.received.at(-1)?.body).toMatchObject({ query: { text: 'bob asks' } });
    expect((upstream.received.at(-1)?.body as { context?: { prev?: string[] } }).context?.prev ?? []).not.toContain('slow lasagne');
    // Alice's task is untouched by all that.
    expect((await clients.aliceB.getTask({ id: task.id, tenant: '' })).status?.state).not.toBe(TaskState.TASK_STATE_CANCELED);
  });
});
