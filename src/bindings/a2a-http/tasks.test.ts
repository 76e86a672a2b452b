import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Message, Role, Task } from '@a2a-js/sdk';
import { answerResponse, elicitationResponse, failureResponse, promiseResponse } from '../../core/responses.ts';
import { anonymousPrincipal } from '../../core/principal.ts';
import { MemoryStore } from '../../store/memory.ts';
import { newStamp, taskFor, textPart } from './render.ts';
import { MAX_STORED_TASK_BYTES, TaskRecords } from './tasks.ts';

const store = new MemoryStore();
afterAll(() => store.close());
const tasks = new TaskRecords(store, 60_000);
const owner = anonymousPrincipal('127.0.0.1');

const item = fc.dictionary(fc.constantFrom('@type', 'name', 'url', 'description', 'text', 'score', 'extra'), fc.jsonValue(), { maxKeys: 5 });
const response = fc.oneof(
  fc.array(item, { maxLength: 6 }).map((items) => answerResponse(items as never)),
  fc.record({ text: fc.string(), questions: fc.array(fc.record({ id: fc.string(), text: fc.string(), type: fc.constant('free_text') }), { maxLength: 3 }) }).map((e) => elicitationResponse(e)),
  fc.record({ token: fc.string({ minLength: 1 }), message: fc.option(fc.string(), { nil: undefined }), progress: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }) }).map((p) =>
    promiseResponse(Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as never),
  ),
  fc.tuple(fc.constantFrom('CANCELLED', 'TIMEOUT', 'UPSTREAM_ERROR'), fc.string()).map(([code, message]) => failureResponse(code, message)),
);
const history = fc.array(fc.string(), { maxLength: 3 }).map((texts) =>
  texts.map((t, i): Message => ({ messageId: `m${i}`, contextId: 'ctx_0123456789abcdef', taskId: 'task_x', role: Role.ROLE_USER, parts: [textPart(t)], metadata: undefined, extensions: [], referenceTaskIds: [] })),
);

describe('task records (tasks.ts): a SendMessage task kept compactly', () => {
  it('reads back as the very task the client was sent, for every kind of answer', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(response, history, async (res, earlier) => {
        const id = `task_compact_${n++}`;
        const base = { id, contextId: 'ctx_0123456789abcdef', history: earlier };
        const stamp = newStamp();
        const task = taskFor(res, base, stamp);
        await tasks.putAnswer({ id, contextId: base.contextId, owner: owner.id, agent: 'main' }, { response: res, stamp, history: earlier.map((m) => Message.toJSON(m)) }, task);
        const record = await tasks.get(id, owner);
        expect(record).not.toBeNull();
        expect(Task.toJSON(TaskRecords.taskOf(record!))).toEqual(Task.toJSON(task));
      }),
      { numRuns: 200 },
    );
  });

  it('an answer too big to keep compactly is kept rendered, without its artifacts', async () => {
    const big = answerResponse(Array.from({ length: 40 }, (_, i) => ({ name: `Dish ${i}`, description: 'x'.repeat(2000) })));
    const base = { id: 'task_big', contextId: 'ctx_0123456789abcdef', history: [] };
    const task = taskFor(big, base);
    expect(JSON.stringify(big).length).toBeGreaterThan(MAX_STORED_TASK_BYTES);
    await tasks.putAnswer({ id: base.id, contextId: base.contextId, owner: owner.id, agent: 'main' }, { response: big, stamp: newStamp(), history: [] }, task);
    const record = (await tasks.get(base.id, owner))!;
    expect(record.answer).toBeUndefined();
    const read = TaskRecords.taskOf(record);
    expect(read.artifacts).toEqual([]);
    expect(read.status).toEqual(task.status);
  });

  it('regression: a verified caller\'s task is not pushed out by anonymous traffic (issue 24)', async () => {
    const capped = new MemoryStore({ maxRecords: 3 });
    try {
      const records = new TaskRecords(capped, 60_000);
      const alice = { id: 'key:alice', name: 'alice', verified: true };
      const put = (id: string, who: { id: string }) => records.put({ id, contextId: 'ctx_0123456789abcdef', owner: who.id, agent: 'main', task: Task.toJSON(taskFor(failureResponse('TIMEOUT', 'x'), { id, contextId: 'ctx_0123456789abcdef', history: [] })) });
      await put('task_ALICEaliceALICEalice01', alice);
      for (let i = 0; i < 10; i++) await put(`task_anon${String(i).padStart(18, '0')}`, owner);
      expect(await records.get('task_ALICEaliceALICEalice01', alice)).not.toBeNull();
      // Another class of caller is not the owner: the same id misses.
      expect(await records.get('task_ALICEaliceALICEalice01', owner)).toBeNull();
      // A client-sent id of any charset is a key too (hashed).
      await put('any id / ü', alice);
      expect((await records.get('any id / ü', alice))?.id).toBe('any id / ü');
    } finally {
      await capped.close();
    }
  });

  it('a rendered put replaces the compact answer (a settled or cancelled task is never read from a stale one)', async () => {
    const base = { id: 'task_replaced', contextId: 'ctx_0123456789abcdef', history: [] };
    const working = promiseResponse({ token: 'p_1' } as never);
    const stamp = newStamp();
    const record = { id: base.id, contextId: base.contextId, owner: owner.id, agent: 'main', promiseToken: 'p_1' };
    await tasks.putAnswer(record, { response: working, stamp, history: [] }, taskFor(working, base, stamp));
    const stored = (await tasks.get(base.id, owner))!;
    const { promiseToken: _settled, ...rest } = stored;
    const done = taskFor(failureResponse('CANCELLED', 'The task was cancelled'), base);
    await tasks.put({ ...rest, task: Task.toJSON(done) });
    const again = (await tasks.get(base.id, owner))!;
    expect(again.answer).toBeUndefined();
    expect(Task.toJSON(TaskRecords.taskOf(again))).toEqual(Task.toJSON(done));
  });
});
