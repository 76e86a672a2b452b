import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../core/gateway-types.ts';
import { anonymousPrincipal } from '../../core/principal.ts';
import { answerResponse, failureResponse, promiseResponse } from '../../core/responses.ts';
import type { AwaitRequest, CanonicalResponse } from '../../protocol/nlweb/index.ts';
import { MemoryStore } from '../../store/memory.ts';
import type { McpCall } from './call.ts';
import { McpTasks, TASK_NAMESPACE, TaskIdParamsSchema, stateOf } from './tasks.ts';

describe('stateOf (an NLWeb response as an MCP task status)', () => {
  it('maps a promise to working with its message and progress', () => {
    expect(stateOf(promiseResponse({ token: 'prm_x', message: 'cooking', progress: 0.4 }))).toEqual({ status: 'working', statusMessage: 'cooking (40%)' });
    expect(stateOf(promiseResponse({ token: 'prm_x' }))).toEqual({ status: 'working' });
  });

  it('maps CANCELLED to cancelled, any other failure to failed, everything else to completed', () => {
    expect(stateOf(failureResponse('CANCELLED', 'stopped')).status).toBe('cancelled');
    expect(stateOf(failureResponse('NO_RESULTS', 'none')).status).toBe('failed');
    expect(stateOf({ _meta: { response_type: 'answer', version: '0.55' }, results: [] } as never).status).toBe('completed');
    expect(stateOf({ _meta: { response_type: 'elicitation', version: '0.55' }, elicitation: { text: 'which?' } } as never).status).toBe('completed');
  });

  it('always yields one of the 2025-11-25 statuses for any failure code', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (code, message) => {
        expect(['failed', 'cancelled']).toContain(stateOf(failureResponse(code, message)).status);
      }),
    );
  });
});

describe('TaskIdParamsSchema', () => {
  it('accepts exactly the params with a non-empty string taskId', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const ok = TaskIdParamsSchema.safeParse(value).success;
        const expected = value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as { taskId?: unknown }).taskId === 'string' && (value as { taskId: string }).taskId.length > 0;
        expect(ok).toBe(expected);
      }),
    );
  });
});

describe('McpTasks: a task record under concurrent requests', () => {
  const store = new MemoryStore();
  afterAll(() => store.close());
  const call: McpCall = { agent: undefined, credentials: {}, principal: anonymousPrincipal('127.0.0.1'), era: 'legacy' };

  /**
   * Task `taskId` over a core whose promise has answered, with a `tasks/result` for it already
   * long-polling (`result`): that check-in is held until `release`; any other check-in answers at once.
   */
  async function heldResult(taskId: string) {
    let release!: () => void;
    let began!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const polling = new Promise<void>((r) => (began = r));
    const gateway = {
      store,
      await: async (req: AwaitRequest): Promise<CanonicalResponse> => {
        if (req.wait_ms !== undefined) await (began(), released);
        return answerResponse([]);
      },
    } as unknown as Gateway;
    const tasks = new McpTasks(gateway, 60_000);
    await tasks.create(promiseResponse({ token: taskId }), call);
    const result = tasks.result(taskId, call, new AbortController().signal);
    await polling;
    return { tasks, result, release };
  }

  it('a task keeps the end it was first seen with (regression: a tasks/result that began earlier wrote its own end over it, and lastUpdatedAt changed after the task was reported terminal)', async () => {
    const taskId = 'prm_first_end_is_kept';
    const { tasks, result, release } = await heldResult(taskId);
    const seen = await tasks.get(taskId, call);
    expect(seen.status).toBe('completed');
    await new Promise((r) => setTimeout(r, 5));
    release();
    await result;
    expect((await tasks.get(taskId, call)).lastUpdatedAt).toBe(seen.lastUpdatedAt);
  });

  it('a task record that expired while tasks/result waited stays gone (regression: remembering the end wrote it back)', async () => {
    const taskId = 'prm_expired_stays_gone';
    const { tasks, result, release } = await heldResult(taskId);
    await store.deleteRecord(TASK_NAMESPACE, taskId); // its TTL ran out
    release();
    expect((await result).isError).toBeUndefined(); // the caller that waited still gets the answer
    await expect(tasks.get(taskId, call)).rejects.toMatchObject({ code: -32602 });
  });
});
