import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { answerResponse, elicitationResponse, failureResponse, promiseResponse } from '../../core/responses.ts';
import { isoTime, RESULTS_ARTIFACT_ID, taskFor, withHistoryLength } from './render.ts';

const base = { id: 'task_1', contextId: 'ctx_1', history: [] };
const partsOf = (t: ReturnType<typeof taskFor>) => t.artifacts[0]?.parts.map((p) => p.content) ?? [];

describe('canonical responses as A2A tasks (docs/a2a.md "Mapping")', () => {
  it('an answer is COMPLETED with one results artifact: the summary as text, a data part per item', () => {
    const t = taskFor(answerResponse([{ '@type': 'SearchSummary', text: 'Two soups.' }, { name: 'A' }, { name: 'B' }]), base);
    expect(t.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(t.artifacts[0]?.artifactId).toBe(RESULTS_ARTIFACT_ID);
    expect(partsOf(t)).toEqual([{ $case: 'text', value: 'Two soups.' }, { $case: 'data', value: { name: 'A' } }, { $case: 'data', value: { name: 'B' } }]);
  });

  it('an answer without a summary gets a short list as its text part', () => {
    const t = taskFor(answerResponse([{ name: 'A' }]), base);
    expect(partsOf(t)[0]).toEqual({ $case: 'text', value: 'Found 1 result:\n1. A' });
  });

  it('an elicitation is INPUT_REQUIRED with the questions as data in the status message', () => {
    const e = { text: 'Which?', questions: [{ id: 'q', text: 'Q?', type: 'free_text' }] };
    const t = taskFor(elicitationResponse(e), base);
    expect(t.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(t.status?.message?.parts.map((p) => p.content?.$case)).toEqual(['text', 'data']);
    expect(t.artifacts).toEqual([]);
  });

  it('a promise is WORKING with its message (never its token) and progress as metadata', () => {
    const t = taskFor(promiseResponse({ token: 'prm_secret', message: 'Cooking', progress: 0.5 }), base);
    expect(t.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(JSON.stringify(t)).not.toContain('prm_secret');
    expect(t.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'Cooking' });
    expect(t.status?.message?.metadata).toEqual({ progress: 0.5 });
  });

  it('a failure is FAILED with its code; CANCELLED is CANCELED', () => {
    const f = taskFor(failureResponse('NO_RESULTS', 'Nothing'), base);
    expect(f.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(f.status?.message?.metadata).toEqual({ code: 'NO_RESULTS' });
    expect(taskFor(failureResponse('CANCELLED', 'stop'), base).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('historyLength: absent keeps all, 0 none, n the last n (§3.2.4)', () => {
    const msgs = [1, 2, 3].map((i) => ({ messageId: `m${i}` }) as never);
    const t = { ...taskFor(answerResponse([]), base), history: msgs };
    expect(withHistoryLength(t, undefined).history).toHaveLength(3);
    expect(withHistoryLength(t, 0).history).toHaveLength(0);
    expect(withHistoryLength(t, 2).history).toEqual(msgs.slice(1));
  });
});

describe('task timestamps', () => {
  it('isoTime is toISOString, whatever the instant and the one formatted before it (property)', () => {
    const instant = fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.integer({ min: Date.now() - 5000, max: Date.now() + 5000 }));
    fc.assert(fc.property(fc.array(instant, { minLength: 1, maxLength: 4 }), (instants) => {
      for (const ms of instants) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }));
    const before = Date.now();
    const read = Date.parse(isoTime());
    expect(read).toBeGreaterThanOrEqual(before);
    expect(read).toBeLessThanOrEqual(Date.now());
  });
});
