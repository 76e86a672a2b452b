import { Task, TaskState, type Part, type SendMessageRequest, type StreamResponse } from '@a2a-js/sdk';
import { GatewayError } from '../../base/errors.ts';
import { isSummaryItem, renderResponseText } from '../../core/render-text.ts';
import { answerResponse, elicitationResponse, failureResponse } from '../../core/responses.ts';
import type { CanonicalResponse, ResultItem } from '../../protocol/nlweb/index.ts';
import type { Store } from '../../store/store.ts';
import type { HandlerDeps } from './handler.ts';
import { dataPart, isTerminal, resultsArtifact, taskFor, textPart, workingTask, type TaskBase } from './render.ts';
import { runSkill, skillOf } from './skills.ts';
import { TaskRecords, streamCancelTopic, type StoredTask } from './tasks.ts';
import { callOptions, notWaiting, openTurn, taskBase, type Caller } from './turn.ts';

/** How long a SubscribeToTask long-polls a promise per check-in (within the core's `awaitMaxWaitMs`). */
const FOLLOW_WAIT_MS = 10_000;
/** How often SubscribeToTask re-reads a task that a stream on some replica is producing. */
const STREAM_POLL_MS = 500;

/**
 * The streams running on this replica, by task id, so CancelTask can stop them: directly here, or
 * through the store's cancel pub/sub from any other replica (one subscription, made on first use).
 */
export class LocalStreams {
  private readonly running = new Map<string, AbortController>();
  private subscribed: Promise<unknown> | undefined;

  constructor(private readonly store: Store) {}

  /** Registers a stream; returns its controller and a release function. */
  async start(taskId: string): Promise<{ controller: AbortController; release: () => void }> {
    this.subscribed ??= this.store
      .onCancel((topic) => {
        for (const [id, c] of this.running) if (streamCancelTopic(id) === topic) c.abort(new GatewayError('CANCELLED', 'The task was cancelled'));
      })
      .catch(() => undefined);
    await this.subscribed;
    const controller = new AbortController();
    this.running.set(taskId, controller);
    return { controller, release: () => this.running.delete(taskId) };
  }

  abortLocal(taskId: string): void {
    this.running.get(taskId)?.abort(new GatewayError('CANCELLED', 'The task was cancelled'));
  }
}

const ev = {
  task: (value: Task): StreamResponse => ({ payload: { $case: 'task', value } }),
  status: (task: Task): StreamResponse => ({ payload: { $case: 'statusUpdate', value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined } } }),
  artifact: (base: TaskBase, parts: Part[], append: boolean, lastChunk: boolean): StreamResponse => ({
    payload: { $case: 'artifactUpdate', value: { taskId: base.id, contextId: base.contextId, artifact: resultsArtifact(parts), append, lastChunk, metadata: undefined } },
  }),
};

/**
 * §3.1.2 SendStreamingMessage over the core's live stream (NLWeb 6): the task (WORKING), then one
 * artifact-update per result (appending to the `results` artifact: data parts, the summary as text),
 * progress as WORKING status-updates, and the final status-update (COMPLETED, INPUT_REQUIRED, FAILED
 * or CANCELED). The task is stored at the start and the end, so other replicas can read, follow and
 * cancel it; the end is a compare-and-set on the start, so a cancel that landed first (from any
 * replica) stays the truth, and the client is told that.
 */
export async function* streamTurn(deps: HandlerDeps, caller: Caller, params: SendMessageRequest): AsyncGenerator<StreamResponse> {
  const { gateway, tasks, agent } = deps;
  const skill = skillOf(params);
  if (skill) {
    yield ev.task(await runSkill(deps, caller, params, skill));
    return;
  }
  const turn = await openTurn(tasks, caller, params);
  const { controller, release } = await deps.streams.start(turn.id);
  let started: StoredTask | undefined;
  let base: TaskBase | undefined;
  let finished = false;
  try {
    const signal = AbortSignal.any([caller.signal, controller.signal]);
    const stream = await gateway.askStream(turn.ask, callOptions(agent, caller, signal));
    base = taskBase(turn, stream.conversationId);
    const working = workingTask(base, 'The agent is working on it');
    const record = { id: base.id, contextId: base.contextId, owner: caller.principal.id, agent, conversationId: stream.conversationId, streaming: true, task: Task.toJSON(working) };
    // A continued task is taken over only while it still waits for this answer (not cancelled or answered meanwhile).
    const raw = turn.from ? await tasks.replace(turn.from, record) : await tasks.put(record);
    if (raw === null) {
      controller.abort(new GatewayError('CANCELLED', 'The task was cancelled'));
      throw notWaiting();
    }
    started = { record, raw };
    yield ev.task(working);

    const items: ResultItem[] = [];
    let final: CanonicalResponse | undefined;
    let chunks = 0;
    for await (const e of stream.events) {
      if (e.type === 'result') {
        items.push(e.item);
        const part = isSummaryItem(e.item) ? textPart(e.item.text as string) : dataPart(e.item);
        yield ev.artifact(base, [part], chunks++ > 0, false);
      } else if (e.type === 'progress' && e.message) {
        yield ev.status(workingTask(base, e.message));
      } else if (e.type === 'elicitation') {
        final = elicitationResponse(e.elicitation);
      } else if (e.type === 'error' && !e.recoverable) {
        final = failureResponse(e.code, e.message);
      }
    }
    const answer = answerResponse(items);
    if (!final && !items.some(isSummaryItem)) yield ev.artifact(base, [textPart(renderResponseText(answer))], chunks > 0, true);
    let done = taskFor(final ?? answer, base);
    // A CancelTask that got here first (from any replica) stays the truth: the client was told CANCELED.
    const ended = await endTask(deps, started, Task.toJSON(done));
    if (ended) done = ended;
    finished = true;
    yield ev.status(done);
  } finally {
    release();
    // The client left mid-stream (the call was aborted with it): the task must not stay WORKING.
    if (started && base && !finished) {
      const gone = taskFor(failureResponse('CANCELLED', 'The client closed the stream'), base);
      await endTask(deps, started, Task.toJSON(gone)).catch(() => undefined);
    }
  }
}

/**
 * Stores a streamed task's end over its start by compare-and-set: a task that ended otherwise
 * meanwhile (cancelled) keeps that end, one expired meanwhile stays gone. Resolves the task that
 * ended it first instead of this end, if any.
 */
async function endTask(deps: HandlerDeps, started: StoredTask, task: unknown): Promise<Task | undefined> {
  const result = await deps.tasks.update(started, (current) => (TaskRecords.ended(current) ? null : { ...started.record, streaming: false, task }));
  return result && !result.changed && TaskRecords.ended(result.now.record) ? TaskRecords.taskOf(result.now.record) : undefined;
}

/**
 * §3.1.6 SubscribeToTask: the task now, then status-updates while it works, and at the end its
 * artifacts and final status. A promise is followed by long-polling check-ins; a task that a stream
 * produces (here or on another replica) by re-reading its record.
 */
export async function* followTask(
  deps: HandlerDeps,
  caller: Caller,
  first: StoredTask,
  checkin: (stored: StoredTask, waitMs: number) => Promise<Task>,
): AsyncGenerator<StreamResponse> {
  let stored = first;
  let task = TaskRecords.taskOf(stored.record);
  yield ev.task(task);
  let lastText = statusText(task);
  while (task.status?.state === TaskState.TASK_STATE_WORKING && !caller.signal.aborted) {
    if (stored.record.promiseToken) {
      task = await checkin(stored, FOLLOW_WAIT_MS);
    } else {
      await sleep(STREAM_POLL_MS, caller.signal);
      const again = await deps.tasks.read(stored.record.id, caller.principal);
      if (!again) return;
      stored = again;
      task = TaskRecords.taskOf(stored.record);
    }
    if (task.status?.state === TaskState.TASK_STATE_WORKING && statusText(task) !== lastText) {
      lastText = statusText(task);
      yield ev.status(task);
    }
  }
  if (!isTerminal(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED) && task.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) return;
  const artifact = task.artifacts[0];
  if (artifact) yield ev.artifact(task, artifact.parts, false, true);
  yield ev.status(task);
}

function statusText(task: Task): string {
  const part = task.status?.message?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : '';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
