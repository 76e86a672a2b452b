import { Message, Task, TaskState, type AgentCard, type CancelTaskRequest, type GetTaskRequest, type ListTasksResponse, type SendMessageRequest, type StreamResponse, type SubscribeToTaskRequest, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { ExtendedAgentCardNotConfiguredError, PushNotificationNotSupportedError, TaskNotCancelableError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { GatewayError, toGatewayError } from '../../base/errors.ts';
import type { Gateway } from '../../core/gateway-types.ts';
import { failureResponse } from '../../core/responses.ts';
import { isPromise, type CanonicalResponse } from '../../protocol/nlweb/index.ts';
import { a2aErrorOf, taskNotFound } from './errors.ts';
import { isTerminal, newStamp, taskFor, withHistoryLength } from './render.ts';
import { runSkill, skillOf } from './skills.ts';
import { followTask, streamTurn, type LocalStreams } from './stream.ts';
import { TaskRecords, streamCancelTopic, type StoredAnswer, type StoredTask, type TaskRecord } from './tasks.ts';
import { callOptions, conversationOf, notWaiting, openTurn, taskBase, type Caller, type Turn } from './turn.ts';

/** What the handler of one request works with. */
export interface HandlerDeps {
  gateway: Gateway;
  /** The agent named by the path (or the default agent). */
  agent: string;
  card: () => Promise<AgentCard>;
  tasks: TaskRecords;
  streams: LocalStreams;
}

/**
 * The A2A 1.0 request handler (the SDK's `A2ARequestHandler`, served by its JSON-RPC transport handler
 * and by the HTTP+JSON routes) over the gateway core: no task runs here, the core runs asks and keeps
 * promises in the store, so any replica answers GetTask, CancelTask and SubscribeToTask. One instance
 * per request: it knows the caller, and remembers the gateway error of a failed call so the HTTP layer
 * can answer 401/403/413/429/503/504 itself (A2A has no code for those).
 */
export class GatewayRequestHandler implements A2ARequestHandler {
  /** The gateway error the call failed with, if any. */
  failure: GatewayError | undefined;

  constructor(
    private readonly deps: HandlerDeps,
    private readonly caller: Caller,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return this.deps.card();
  }

  /** §3.1.11 no extended card: the public card says everything. */
  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError();
  }

  /** §3.1.1 SendMessage: an ask; the answer (or a promise) as a task. */
  sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    return this.guard(async () => {
      const { gateway, agent, tasks } = this.deps;
      const skill = skillOf(params);
      if (skill) return withHistoryLength(await runSkill(this.deps, this.caller, params, skill), params.configuration?.historyLength);
      const turn = await openTurn(tasks, this.caller, params);
      const immediately = params.configuration?.returnImmediately === true;
      // A new task's record goes into the store with the conversation turn (one write, one Redis
      // round trip) when the answer comes within the call; a promise's record is written below.
      let answered: Task | undefined;
      const recordWithAnswer = (answer: CanonicalResponse) => {
        const made = this.taskOf(turn, answer);
        answered = made.task;
        return tasks.answerWrite(made.record, made.answer, made.task);
      };
      const response = await gateway.ask(turn.ask, { ...callOptions(agent, this.caller), allowPromise: true, ...(immediately ? { promiseAfterMs: 0 } : {}), ...(turn.from ? {} : { recordWithAnswer }) });
      if (answered && !isPromise(response)) return withHistoryLength(answered, params.configuration?.historyLength);
      const { record, answer, task } = this.taskOf(turn, response);
      if (!turn.from) await tasks.putAnswer(record, answer, task);
      else if ((await tasks.replace(turn.from, { ...record, answer }, task)) === null) {
        // The task was cancelled or answered meanwhile: that stands. A promise nobody can collect now is stopped.
        if (isPromise(response)) await gateway.await({ promise_token: response.promise.token, action: 'cancel' }, callOptions(agent, this.caller)).catch(() => undefined);
        throw notWaiting();
      }
      return withHistoryLength(task, params.configuration?.historyLength);
    });
  }

  /** The task a SendMessage's response makes, its record, and what renders it again (TaskRecords.putAnswer). */
  private taskOf(turn: Turn, response: CanonicalResponse): { task: Task; record: Omit<TaskRecord, 'task' | 'answer'>; answer: StoredAnswer } {
    const conversationId = conversationOf(response) ?? turn.conversationId;
    const base = taskBase(turn, conversationId);
    const stamp = newStamp();
    const task = taskFor(response, base, stamp);
    const record = {
      id: task.id,
      contextId: task.contextId,
      owner: this.caller.principal.id,
      agent: this.deps.agent,
      ...(conversationId ? { conversationId } : {}),
      ...(isPromise(response) ? { promiseToken: response.promise.token } : {}),
    };
    return { task, record, answer: { response, stamp, history: base.history.map((m) => Message.toJSON(m)) } };
  }

  /** §3.1.2 SendStreamingMessage: the canonical stream as task, status-update and artifact-update events. */
  sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    return this.guardStream(streamTurn(this.deps, this.caller, params));
  }

  /** §3.1.3 GetTask: the stored task, checking in on its promise while it works. */
  getTask(params: GetTaskRequest): Promise<Task> {
    return this.guard(async () => {
      const stored = await this.mustRead(params.id);
      const task = stored.record.promiseToken ? await this.checkin(stored, 0) : TaskRecords.taskOf(stored.record);
      return withHistoryLength(task, params.historyLength);
    });
  }

  /**
   * §3.1.5 CancelTask: cancels the promise (or the stream, wherever it runs); a finished task is not
   * cancelable. The write is a compare-and-set: a task that ended while the cancel was on its way (its
   * stream or promise answered, on any replica) keeps that end, and the cancel is refused.
   */
  cancelTask(params: CancelTaskRequest): Promise<Task> {
    return this.guard(async () => {
      const stored = await this.mustRead(params.id);
      if (TaskRecords.ended(stored.record)) throw new TaskNotCancelableError(`The task is already ${stateName(TaskRecords.taskOf(stored.record))}`);
      const result = await this.deps.tasks.update(stored, (current) => (TaskRecords.ended(current) ? null : this.cancelled(current)));
      if (!result) throw taskNotFound();
      // CANCELED either way: this cancel's write, or one that landed first (the stream this cancel stopped wrote it).
      const task = TaskRecords.taskOf(result.now.record);
      if (task.status?.state !== TaskState.TASK_STATE_CANCELED) throw new TaskNotCancelableError(`The task is already ${stateName(task)}`);
      return task;
    });
  }

  /** §3.1.6 SubscribeToTask: the task, then its updates until it finishes, from any replica. */
  resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const self = this;
    return this.guardStream(
      (async function* () {
        const stored = await self.mustRead(params.id);
        const task = TaskRecords.taskOf(stored.record);
        if (isTerminal(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) throw new UnsupportedOperationError(`The task is already ${stateName(task)}`);
        yield* followTask(self.deps, self.caller, stored, (r, waitMs) => self.checkin(r, waitMs));
      })(),
    );
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('ListTasks is not supported: keep the ids of your tasks');
  }
  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }
  async getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }
  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }
  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError();
  }

  // ---- internals ----

  /** The caller's task record as read, or "task not found" (the same answer for unknown and someone else's). */
  private async mustRead(taskId: string): Promise<StoredTask> {
    const stored = await this.deps.tasks.read(taskId, this.caller.principal);
    if (!stored) throw taskNotFound();
    return stored;
  }

  /** The record of a task cancelled now: its promise cancelled (its answer when it had one first), or its stream stopped wherever it runs. */
  private async cancelled(record: TaskRecord): Promise<TaskRecord> {
    const { gateway, agent } = this.deps;
    const { history } = TaskRecords.taskOf(record);
    let task: Task;
    if (record.promiseToken) {
      const response = await gateway.await({ promise_token: record.promiseToken, action: 'cancel' }, callOptions(agent, this.caller));
      task = taskFor(response, { id: record.id, contextId: record.contextId, history });
    } else {
      if (record.streaming) {
        this.deps.streams.abortLocal(record.id);
        await gateway.store.publishCancel(streamCancelTopic(record.id));
      }
      task = taskFor(failureResponse('CANCELLED', 'The task was cancelled'), { id: record.id, contextId: record.contextId, history });
    }
    const { promiseToken: _settled, streaming: _stopped, ...rest } = record;
    return { ...rest, task: Task.toJSON(task) };
  }

  /**
   * NLWeb 4.2 check-in on the task's promise (long-polling `waitMs`); a settled answer is stored with
   * the task, since the promise is forgotten soon after it was read. Stored by compare-and-set, only
   * over the record still waiting on this promise: one that changed meanwhile (cancelled, answered and
   * continued) keeps what it holds, one expired meanwhile stays gone.
   */
  async checkin(from: StoredTask, waitMs: number): Promise<Task> {
    const { gateway, tasks, agent } = this.deps;
    const token = from.record.promiseToken!;
    const history = TaskRecords.taskOf(from.record).history;
    const response = await gateway
      .await({ promise_token: token, action: 'checkin', ...(waitMs > 0 ? { wait_ms: waitMs } : {}) }, callOptions(agent, this.caller))
      .catch((err: unknown) => {
        const e = toGatewayError(err);
        if (e.code !== 'PROMISE_NOT_FOUND') throw e;
        return failureResponse('TIMEOUT', 'The answer expired before it was collected');
      });
    const task = taskFor(response, { id: from.record.id, contextId: from.record.contextId, history });
    if (isPromise(response)) return task;
    const result = await tasks.update(from, ({ promiseToken, ...rest }) => (promiseToken === token ? { ...rest, task: Task.toJSON(task) } : null));
    // A task that ended otherwise meanwhile (a cancel) is told as it stands.
    return result && !result.changed && TaskRecords.ended(result.now.record) ? TaskRecords.taskOf(result.now.record) : task;
  }

  /** Runs a call, remembering a gateway error and turning anything thrown into an A2A error. */
  private guard<T>(call: () => Promise<T>): Promise<T> {
    // Not async: one `.catch` on the call's own promise (an async wrapper cost a request two more, issue 25).
    return call().catch((err: unknown) => {
      throw this.translate(err);
    });
  }

  private async *guardStream(events: AsyncGenerator<StreamResponse>): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      yield* events;
    } catch (err) {
      throw this.translate(err);
    }
  }

  private translate(err: unknown): unknown {
    if (!(err instanceof GatewayError) && isA2AError(err)) return err;
    const e = toGatewayError(err);
    if (e.code === 'INTERNAL_ERROR') this.deps.gateway.log.error({ err: String(err), requestId: this.caller.requestId }, 'A2A call failed');
    this.failure = e;
    return a2aErrorOf(e);
  }
}

function isA2AError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && Symbol.for('@a2a-js/sdk.A2AError') in err;
}

function stateName(task: Task): string {
  return TaskState[task.status?.state ?? 0]?.replace('TASK_STATE_', '').toLowerCase() ?? 'finished';
}
