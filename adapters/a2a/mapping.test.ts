import { describe, expect, it } from 'vitest';
import { Role, TaskState, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';
import { elicitationOf, isWorking, partsToItems, replyEvents, terminalEvent } from './mapping.ts';

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
const status = (state: TaskState, parts: Part[] = []): TaskStatus => ({
  state,
  message: parts.length ? { messageId: 'm', contextId: 'c', taskId: 't', role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] } : undefined,
  timestamp: undefined,
});
const task = (state: TaskState, artifactParts: Part[] = [], statusParts: Part[] = []): Task => ({
  id: 't', contextId: 'c', status: status(state, statusParts), history: [], metadata: undefined,
  artifacts: artifactParts.length ? [{ artifactId: 'a', name: '', description: '', parts: artifactParts, metadata: undefined, extensions: [] }] : [],
});

describe('A2A parts and states as canonical events (docs/a2a.md "Mapping")', () => {
  it('object data parts are items, arrays of objects are items, text is kept apart, files are MediaObjects', () => {
    const url: Part = { content: { $case: 'url', value: 'https://x/y.png' }, metadata: undefined, filename: 'y.png', mediaType: 'image/png' };
    const r = partsToItems([text('hello'), data({ name: 'A' }), data([{ name: 'B' }, 3]), data('scalar'), url]);
    expect(r.text).toEqual(['hello']);
    expect(r.items).toEqual([{ name: 'A' }, { name: 'B' }, { '@type': 'MediaObject', url: 'https://x/y.png', name: 'y.png', encodingFormat: 'image/png' }]);
  });

  it('a completed task: the summary first, then its items; no terminal error', () => {
    const events = [...replyEvents(task(TaskState.TASK_STATE_COMPLETED, [text('Two dishes'), data({ name: 'A' }), data({ name: 'B' })]))];
    expect(events).toEqual([
      { type: 'result', item: { '@type': 'SearchSummary', text: 'Two dishes' } },
      { type: 'result', item: { name: 'A' } },
      { type: 'result', item: { name: 'B' } },
    ]);
  });

  it('INPUT_REQUIRED is an elicitation with questions from a data part; others keep only the text', () => {
    const q = { id: 'cuisine', text: 'Which?', type: 'free_text' };
    expect(elicitationOf(status(TaskState.TASK_STATE_INPUT_REQUIRED, [text('Which cuisine?'), data({ questions: [q, { bad: 1 }] })]))).toEqual({ text: 'Which cuisine?', questions: [q] });
    expect(elicitationOf(status(TaskState.TASK_STATE_INPUT_REQUIRED))).toEqual({ text: 'The agent needs more information.' });
  });

  it('FAILED/REJECTED are UPSTREAM_ERROR, CANCELED is CANCELLED, AUTH_REQUIRED is UNAUTHORIZED; working states have none', () => {
    expect(terminalEvent(status(TaskState.TASK_STATE_FAILED, [text('closed')]))).toEqual({ type: 'error', code: 'UPSTREAM_ERROR', message: 'closed' });
    expect(terminalEvent(status(TaskState.TASK_STATE_REJECTED))).toMatchObject({ type: 'error', code: 'UPSTREAM_ERROR' });
    expect(terminalEvent(status(TaskState.TASK_STATE_CANCELED))).toMatchObject({ type: 'error', code: 'CANCELLED' });
    expect(terminalEvent(status(TaskState.TASK_STATE_AUTH_REQUIRED))).toMatchObject({ type: 'error', code: 'UNAUTHORIZED' });
    for (const s of [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]) {
      expect(terminalEvent(status(s))).toBeUndefined();
      expect(isWorking(task(s))).toBe(true);
    }
    expect(isWorking(task(TaskState.TASK_STATE_COMPLETED))).toBe(false);
  });
});
