import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@a2a-js/sdk/client';
import { startV055Agent } from '../nlweb/agents/v055-agent.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { a2aClient, asTask, collect, data, dataParts, finalState, send, textParts, userMessage, TaskState } from './support.ts';

/**
 * Issue 15, inbound: the SDK's own A2A client (JSON-RPC and HTTP+JSON) against the gateway, whose
 * agent is a real NLWeb v0.55 agent over HTTP. Slow answers (`slow`, 2 s) become WORKING tasks; the
 * others answer well within the 800 ms after which the gateway makes a promise, even on a loaded
 * machine (at 300 ms an elicitation answered under load came back WORKING).
 */
describe('A2A clients reach a gateway agent', () => {
  let upstream: Awaited<ReturnType<typeof startV055Agent>>;
  let gw: TestGateway;
  const base = () => `${gw.url}/a2a/recipes`;

  beforeAll(async () => {
    upstream = await startV055Agent({ slowMs: 2000 });
    gw = await startGateway({
      defaults: { promiseAfterMs: 800 },
      agents: [{ name: 'recipes', kind: 'nlweb', url: upstream.url, streaming: true, description: 'Recipes and cooking tips' }],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  it('serves an agent card with both interfaces, streaming, and no push notifications', async () => {
    const res = await fetch(`${base()}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = await res.json();
    expect(card.name).toBe('recipes');
    expect(card.description).toContain('Recipes');
    expect(card.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON']);
    expect(card.supportedInterfaces[0].url).toBe(base());
    expect(card.capabilities.streaming).toBe(true);
    expect(card.capabilities.pushNotifications ?? false).toBe(false);
    expect(card.skills[0].id).toBe('ask');
    const root = await (await fetch(`${gw.url}/.well-known/agent-card.json`)).json();
    expect(root.name).toBe('recipes');
  });

  it('HTTP+JSON answers, results and errors, are application/a2a+json, as the reference server sends them', async () => {
    const sent = await fetch(`${base()}/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm-type', role: 'ROLE_USER', parts: [{ text: 'pasta' }] } }),
    });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('content-type')).toBe('application/a2a+json');
    expect(((await sent.json()) as { task?: { id?: string } }).task?.id).toBeTruthy();
    const missing = await fetch(`${base()}/rest/tasks/no-such-task`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/a2a+json');
    expect(((await missing.json()) as { error?: { code?: number } }).error?.code).toBe(404);
  });

  it('a client that closes a stream leaves a CANCELED task, not one WORKING forever', async () => {
    const abort = new AbortController();
    const res = await fetch(`${base()}/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm-close', role: 'ROLE_USER', parts: [{ text: 'slow tagine' }] } }),
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const taskId = (JSON.parse(first.replace(/^data: /, '').trim()) as { task: { id: string } }).task.id;
    abort.abort();
    const client = await a2aClient(`${base()}/`);
    await expect
      .poll(async () => (await client.getTask({ id: taskId, tenant: '' })).status?.state, { timeout: 10_000, interval: 100 })
      .toBe(TaskState.TASK_STATE_CANCELED);
  });

  for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
    describe(`over ${transport}`, () => {
      let client: Client;
      beforeAll(async () => {
        client = await a2aClient(`${base()}/`, transport);
      });

      it('SendMessage answers with a completed task: a data part per item and a text part', async () => {
        const task = asTask(await client.sendMessage(send(userMessage('pasta'))));
        expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(task.id).toMatch(/^task_/);
        // A new context is named after the conversation it started (contexts.ts): an id the caller can send back.
        expect(task.contextId).toMatch(/^[\w.:-]{16,128}$/);
        expect(dataParts(task).length).toBe(3);
        expect(textParts(task)[0]).toContain('result');
        expect(upstream.received.at(-1)?.body).toMatchObject({ query: { text: 'pasta' } });
      });

      it('data parts become query filters', async () => {
        await client.sendMessage(send(userMessage([data({ site: 'cooking' }), { ...data(null), content: { $case: 'text', value: 'soup' } }])));
        expect(upstream.received.at(-1)?.body).toMatchObject({ query: { text: 'soup', site: 'cooking' } });
      });

      it('SendStreamingMessage streams the task, an artifact per result, then COMPLETED', async () => {
        const events = await collect(client.sendMessageStream(send(userMessage('stew'))));
        expect(events[0]?.payload?.$case).toBe('task');
        const artifacts = events.filter((e) => e.payload?.$case === 'artifactUpdate');
        expect(artifacts.length).toBeGreaterThanOrEqual(3);
        expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
        const taskId = (events[0]!.payload!.value as { id: string }).id;
        const stored = await client.getTask({ id: taskId, tenant: '' });
        expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(dataParts(stored).length).toBe(3);
      });

      it('a slow answer is a WORKING task that GetTask follows to COMPLETED', async () => {
        const task = asTask(await client.sendMessage(send(userMessage('slow risotto'))));
        expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        await expect
          .poll(async () => (await client.getTask({ id: task.id, tenant: '' })).status?.state, { timeout: 10_000, interval: 200 })
          .toBe(TaskState.TASK_STATE_COMPLETED);
        const done = await client.getTask({ id: task.id, tenant: '' });
        expect(dataParts(done).length).toBe(3);
      });

      it('CancelTask cancels a working task; a finished task is not cancelable', async () => {
        const task = asTask(await client.sendMessage(send(userMessage('slow curry'))));
        const cancelled = await client.cancelTask({ id: task.id, tenant: '', metadata: undefined });
        expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        await expect(client.cancelTask({ id: task.id, tenant: '', metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
      });

      it('SubscribeToTask follows a working task to its end', async () => {
        const task = asTask(await client.sendMessage(send(userMessage('slow gumbo'))));
        const events = await collect(client.resubscribeTask({ id: task.id, tenant: '' }));
        expect(events[0]?.payload?.$case).toBe('task');
        expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(events.some((e) => e.payload?.$case === 'artifactUpdate')).toBe(true);
      });

      it('an elicitation is INPUT_REQUIRED; the answer continues the same task and context', async () => {
        const first = asTask(await client.sendMessage(send(userMessage('elicit dinner'))));
        expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        const parts = first.status?.message?.parts ?? [];
        expect(parts.some((p) => p.content?.$case === 'data')).toBe(true);
        const second = asTask(await client.sendMessage(send(userMessage('vegetarian please', { taskId: first.id, contextId: first.contextId }))));
        expect(second.id).toBe(first.id);
        expect(second.contextId).toBe(first.contextId);
        expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(upstream.received.at(-1)?.body).toMatchObject({ context: { prev: ['elicit dinner'] } });
      });

      it('multi-turn: the contextId carries the conversation to the next message', async () => {
        const first = asTask(await client.sendMessage(send(userMessage('tacos'))));
        await client.sendMessage(send(userMessage('with beans', { contextId: first.contextId })));
        expect(upstream.received.at(-1)?.body).toMatchObject({ query: { text: 'with beans' }, context: { prev: ['tacos'] } });
      });

      it('multi-turn: a client-chosen contextId of any charset carries the conversation too', async () => {
        const contextId = `urn:example/ctx ${transport} ${Date.now()}`;
        await client.sendMessage(send(userMessage('ramen', { contextId })));
        const second = asTask(await client.sendMessage(send(userMessage('spicy', { contextId }))));
        expect(second.contextId).toBe(contextId);
        expect(upstream.received.at(-1)?.body).toMatchObject({ query: { text: 'spicy' }, context: { prev: ['ramen'] } });
      });

      it('an unknown task is TaskNotFound', async () => {
        await expect(client.getTask({ id: 'task_never_was_here_at_all', tenant: '' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
      });
    });
  }
});
