import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import { isSummaryItem, renderResponseText } from '../../core/render-text.ts';
import { isAnswer, isElicitation, isFailure, isPromise, type CanonicalResponse, type ResultItem } from '../../protocol/nlweb/index.ts';

/**
 * Canonical responses as A2A 1.0 objects (docs/a2a.md "Mapping"): an answer is a COMPLETED task with
 * one `results` artifact (a text part for the summary, a data part per item), an elicitation is
 * INPUT_REQUIRED with the questions, a promise is WORKING, a failure FAILED (CANCELED for CANCELLED).
 */

/** The artifact every answer's results go into (streamed chunks append to it). */
export const RESULTS_ARTIFACT_ID = 'results';

/** §4.1.6 a text part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** §4.1.6 a data part (a JSON value). */
export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** §4.1.4 a message from the agent in a task's status. */
export function agentMessage(parts: Part[], taskId: string, contextId: string, metadata?: Record<string, unknown>, messageId: string = randomUUID()): Message {
  return { messageId, contextId, taskId, role: Role.ROLE_AGENT, parts, metadata, extensions: [], referenceTaskIds: [] };
}

/** What makes one rendering of a task unique: its status message's id and its timestamp (kept to render it again, tasks.ts). */
export interface Stamp {
  messageId: string;
  timestamp: string;
}

/** The second `isoTime` formatted last, and its text up to the milliseconds (`YYYY-MM-DDTHH:MM:SS.`). */
let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * `new Date(ms).toISOString()`, the text of the second kept from one call to the next: V8's
 * formatting took ≈ 2.8 µs of a SendMessage in place, a new second's text is made once (issue 25).
 */
export function isoTime(ms: number = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoPrefix = new Date(second * 1000).toISOString().slice(0, -4); // every ISO text ends `.sssZ`
    isoSecond = second;
  }
  const milli = ms - second * 1000;
  return `${isoPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** A stamp for a task rendered now. */
export const newStamp = (): Stamp => ({ messageId: randomUUID(), timestamp: isoTime() });

/** §4.1.7 the results artifact: the given parts under the fixed id. */
export function resultsArtifact(parts: Part[]): Artifact {
  return { artifactId: RESULTS_ARTIFACT_ID, name: 'results', description: 'The agent\'s answer: a summary text and one data part per result item.', parts, metadata: undefined, extensions: [] };
}

/** The parts of an answer: the summary (or a short list) as text, then each item as data; `text` when already rendered. */
export function answerParts(results: ResultItem[], text = renderResponseText({ _meta: { response_type: 'answer', version: '0.55' }, results })): Part[] {
  const items = results.filter((r) => !isSummaryItem(r));
  return [textPart(text), ...items.map((it) => dataPart(it))];
}

/** §4.1.3 The task state a canonical response puts a task in. */
export function stateOf(response: CanonicalResponse): TaskState {
  if (isAnswer(response)) return TaskState.TASK_STATE_COMPLETED;
  if (isElicitation(response)) return TaskState.TASK_STATE_INPUT_REQUIRED;
  if (isPromise(response)) return TaskState.TASK_STATE_WORKING;
  if (isFailure(response)) return response.error.code === 'CANCELLED' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED;
  return TaskState.TASK_STATE_FAILED;
}

/** True for the states after which a task never changes (§4.1.3). */
export function isTerminal(state: TaskState): boolean {
  return [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED].includes(state);
}

/** What a task is besides its state: id, context, the conversation so far. */
export interface TaskBase {
  id: string;
  contextId: string;
  history: Message[];
}

/** §4.1.1 The task for a canonical response (rendered again from the same response, base and stamp, it is the same task). */
export function taskFor(response: CanonicalResponse, base: TaskBase, stamp: Stamp = newStamp()): Task {
  const state = stateOf(response);
  // A promise's token never reaches an A2A client (the task is the handle): its message only.
  const text = isPromise(response) ? (response.promise.message ?? 'The agent is working on it') : renderResponseText(response);
  let statusParts: Part[] = [textPart(text)];
  let metadata: Record<string, unknown> | undefined;
  if (isElicitation(response)) statusParts = [textPart(text), dataPart(response.elicitation)];
  if (isFailure(response)) metadata = { code: response.error.code };
  if (isPromise(response) && response.promise.progress !== undefined) metadata = { progress: response.promise.progress };
  const message = agentMessage(statusParts, base.id, base.contextId, metadata, stamp.messageId);
  return {
    id: base.id,
    contextId: base.contextId,
    status: { state, message, timestamp: stamp.timestamp },
    artifacts: isAnswer(response) ? [resultsArtifact(answerParts(response.results, text))] : [],
    history: base.history,
    metadata: undefined,
  };
}

/** A task in WORKING with an optional status text (a stream's first event, a follow-up's start). */
export function workingTask(base: TaskBase, text?: string): Task {
  return {
    id: base.id,
    contextId: base.contextId,
    status: { state: TaskState.TASK_STATE_WORKING, message: text ? agentMessage([textPart(text)], base.id, base.contextId) : undefined, timestamp: isoTime() },
    artifacts: [],
    history: base.history,
    metadata: undefined,
  };
}

/** §3.2.4 `historyLength`: absent = all, 0 = none, n = the last n messages. */
export function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
