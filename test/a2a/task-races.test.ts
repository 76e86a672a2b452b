import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { MemoryStore } from '../../src/store/memory.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { a2aClient, asTask, collect, finalState, send, userMessage, TaskState } from './support.ts';

/**
 * Task records changed by two requests at once (a cancel, a stream's end, an answer to a task waiting
 * for input, a check-in), as on two replicas: each write must change the record it read or nothing,
 * so a terminal task never changes state again (A2A 1.0 §3.1.5) and a task gone stays gone. The
 * store's methods are wrapped to run the other request at the worst moment, deterministically.
 */
const NAMESPACE = 'a2a-task';

/** Runs `before` ahead of the next task-record write whose text `when` matches, `after` once it landed. */
interface WriteHook {
  when: (value: string) => boolean;
  before: (value: string) => Promise<void>;
  after?: () => void;
}
let writeHook: WriteHook | undefined;
/** Runs once on the next task-record read, after the read and before its caller gets the value. */
let readHook: (() => Promise<void>) | undefined;

const store = new MemoryStore();
const put = store.putRecord.bind(store);
const replace = store.replaceRecord.bind(store);
const get = store.getRecord.bind(store);
const hookFor = (namespace: string, value: string): WriteHook | undefined => {
  const hook = writeHook;
  if (namespace !== NAMESPACE || !hook?.when(value)) return undefined;
  writeHook = undefined;
  return hook;
};
store.putRecord = async (namespace, id, value, ttlMs, owner) => {
  const hook = hookFor(namespace, value);
  await hook?.before(value);
  await put(namespace, id, value, ttlMs, owner);
  hook?.after?.();
};
store.replaceRecord = async (namespace, id, expected, value, ttlMs, owner) => {
  const hook = hookFor(namespace, value);
  await hook?.before(value);
  const replaced = await replace(namespace, id, expected, value, ttlMs, owner);
  hook?.after?.();
  return replaced;
};
store.getRecord = async (namespace, id, touchTtlMs) => {
  const value = await get(namespace, id, touchTtlMs);
  const hook = namespace === NAMESPACE ? readHook : undefined;
  readHook = undefined;
  await hook?.();
  return value;
};

const idOf = (value: string) => (JSON.parse(value) as { id: string }).id;
const isStreamEnd = (value: string) => value.includes('"streaming":false') && value.includes('TASK_STATE_COMPLETED');
const stateOf = async (client: Client, id: string) => (await client.getTask({ id, tenant: '' })).status?.state;

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

let gw: TestGateway;
let client: Client;
beforeAll(async () => {
  gw = await startGateway({ defaults: { promiseAfterMs: 60_000 }, agents: [{ name: 'main', kind: 'scripted' }] }, { store });
  client = await a2aClient(`${gw.url}/a2a/main/`);
});
afterAll(async () => {
  await gw?.close();
});

describe('A2A task records under concurrent requests', () => {
  it("a task cancelled while its stream ends stays canceled (regression: the stream's final write overwrote the cancel)", async () => {
    let cancelled: Task | undefined;
    writeHook = { when: isStreamEnd, before: async (value) => void (cancelled = await client.cancelTask({ id: idOf(value), tenant: '', metadata: undefined })) };
    const events = await collect(client.sendMessageStream(send(userMessage('count:2 cancelled at the end'))));
    const taskId = (events[0]!.payload!.value as { id: string }).id;
    expect(cancelled?.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The stream's client is told what the store holds, the canceled task.
    expect(finalState(events)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await stateOf(client, taskId)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("a task that completed while a cancel was on its way stays completed (regression: the cancel's write overwrote the completion)", async () => {
    let cancelling: Promise<unknown> | undefined;
    const cancelRead = deferred();
    const completed = deferred();
    writeHook = {
      when: isStreamEnd,
      // The cancel reads the task WORKING, then waits until the stream's COMPLETED write has landed.
      before: async (value) => {
        readHook = async () => (cancelRead.resolve(), completed.promise);
        cancelling = client.cancelTask({ id: idOf(value), tenant: '', metadata: undefined }).catch((err: unknown) => err);
        await cancelRead.promise;
      },
      after: () => completed.resolve(),
    };
    const events = await collect(client.sendMessageStream(send(userMessage('count:2 completed first'))));
    const taskId = (events[0]!.payload!.value as { id: string }).id;
    expect(await cancelling).toMatchObject({ name: 'TaskNotCancelableError' });
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await stateOf(client, taskId)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  for (const via of ['SendMessage', 'SendStreamingMessage'] as const) {
    it(`${via}: an answer to a task cancelled while it waited for input is refused, and the task stays canceled (regression: the answer overwrote the cancel)`, async () => {
      const first = asTask(await client.sendMessage(send(userMessage('elicit a sauce'))));
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const answer = `tomato via ${via}`;
      let cancelled: Task | undefined;
      writeHook = { when: (value) => value.includes(answer), before: async () => void (cancelled = await client.cancelTask({ id: first.id, tenant: '', metadata: undefined })) };
      const reply = send(userMessage(answer, { taskId: first.id, contextId: first.contextId }));
      const replied = via === 'SendMessage' ? client.sendMessage(reply) : collect(client.sendMessageStream(reply));
      await expect(replied).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
      expect(cancelled?.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(await stateOf(client, first.id)).toBe(TaskState.TASK_STATE_CANCELED);
    });
  }

  it('of two answers to one task waiting for input, the later is refused (regression: its write undid the earlier answer)', async () => {
    const first = asTask(await client.sendMessage(send(userMessage('elicit a topping'))));
    let earlier: Task | undefined;
    writeHook = {
      when: (value) => value.includes('cream, later'),
      before: async () => void (earlier = asTask(await client.sendMessage(send(userMessage('basil, earlier', { taskId: first.id }))))),
    };
    await expect(client.sendMessage(send(userMessage('cream, later', { taskId: first.id })))).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
    expect(earlier?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const stored = await client.getTask({ id: first.id, tenant: '' });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const said = JSON.stringify(stored.history);
    expect(said).toContain('basil, earlier');
    expect(said).not.toContain('cream, later');
  });

  it('a task whose record expired while a check-in was on its way stays gone (regression: the check-in wrote it back)', async () => {
    const task = asTask(await client.sendMessage(send(userMessage('slow:200 count:1 expiring'), true)));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    // The record expires (its TTL ran out) between the check-in's read and its write.
    writeHook = { when: (value) => idOf(value) === task.id && value.includes('TASK_STATE_COMPLETED'), before: (value) => store.deleteRecord(NAMESPACE, idOf(value)) };
    await expect.poll(() => stateOf(client, task.id), { timeout: 10_000, interval: 50 }).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(client.getTask({ id: task.id, tenant: '' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});

describe('A2A task records written with the conversation turn (issue 25: one store write)', () => {
  it('the answer comes with its task, and its record is the one GetTask reads', async () => {
    const task = asTask(await client.sendMessage(send(userMessage('count:1 answered at once'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const read = await client.getTask({ id: task.id, tenant: '' });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.artifacts).toEqual(task.artifacts);
  });

  it('a promise that wins the race while the answer\'s record is being written: the task the client gets and the stored record agree', async () => {
    // The answer comes at once, but its write (turn and task record together) is slow: the call's
    // promiseAfterMs runs out meanwhile, and the client gets the promise's task. Its record must
    // name the promise, which answers when checked in on, not a task the client was never shown.
    const slow = new MemoryStore();
    const recordTurn = slow.recordTurn.bind(slow);
    let slowed = 0;
    slow.recordTurn = async (id, turn, opts, record) => {
      if (record) {
        slowed++;
        await new Promise((r) => setTimeout(r, 300));
      }
      return recordTurn(id, turn, opts, record);
    };
    const quick = await startGateway({ defaults: { promiseAfterMs: 100 }, agents: [{ name: 'main', kind: 'scripted' }] }, { store: slow });
    try {
      const other = await a2aClient(`${quick.url}/a2a/main/`);
      const task = asTask(await other.sendMessage(send(userMessage('count:1 raced'))));
      expect(slowed).toBe(1);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      await expect.poll(async () => (await other.getTask({ id: task.id, tenant: '' })).status?.state, { timeout: 10_000, interval: 50 }).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await quick.close();
    }
  });
});
