import { abortableDelay } from '../../core/delay.ts';
import { z } from 'zod';
import {
  ProtocolError,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CancelTaskResult,
  type CreateTaskResult,
  type GetTaskResult,
  type Task,
} from '@modelcontextprotocol/server';
import type { Gateway } from '../../core/gateway-types.ts';
import { isOwner, ownerTag } from '../../core/ownership.ts';
import type { Principal } from '../../core/principal.ts';
import type { Store } from '../../store/store.ts';
import { isPromise, type CanonicalResponse, type PromiseResponse } from '../../protocol/nlweb/index.ts';
import { callOptions, type McpCall } from './call.ts';
import { renderNlwebResult } from './render.ts';

/** Store namespace of the MCP tasks the binding created (one per task-augmented `ask`). */
export const TASK_NAMESPACE = 'mcp-task';
/** How often a requestor is asked to poll `tasks/get` (MCP 2025-11-25 Tasks, `pollInterval`). */
export const TASK_POLL_INTERVAL_MS = 1000;
/** The config default of `defaults.promiseTtlMs`, used when the settings do not say. */
export const DEFAULT_TTL_MS = 3_600_000;
/** What one `tasks/result` round asks the core to wait; the core caps it at `defaults.awaitMaxWaitMs`. */
const LONG_POLL_MS = 30_000;
/** A `tasks/result` round never spins faster than this (a cap of 0, an upstream promise answered at once). */
const MIN_ROUND_MS = 250;

/** The params of `tasks/get`, `tasks/result` and `tasks/cancel` (2025-11-25 `GetTaskRequest` and kin). */
export const TaskIdParamsSchema = z.looseObject({ taskId: z.string().min(1) });

export const TerminalSchema = z.enum(['completed', 'failed', 'cancelled']);

/** The fields every task record has (both revisions' tasks): when it began, for how long, whose it is. */
export const TaskRecordBaseSchema = z.object({
  createdAt: z.string(),
  ttl: z.number().int().positive(),
  /** Owner tag of the principal that created the task (core/ownership.ts): nobody else sees it. */
  owner: z.string().optional(),
});

/**
 * What the binding keeps beside the promise: the facts a Task reports that the promise does not
 * carry. The promise itself (status, answer) stays the core's; this only remembers when the task
 * began, who may see it, and — once seen terminal — its final state, so later `tasks/get` calls do
 * not touch the promise again.
 */
const TaskRecordSchema = TaskRecordBaseSchema.extend({
  final: z.object({ status: TerminalSchema, statusMessage: z.string().optional(), at: z.string() }).optional(),
});
type TaskRecord = z.infer<typeof TaskRecordSchema>;
/** A task record as read, with the stored text a compare-and-set of it compares against. */
interface StoredRecord {
  record: TaskRecord;
  raw: string;
}

/** A task's record, or -32602 when unknown, expired, unreadable, or created by another principal (the same error). */
export async function readTaskRecord<S extends typeof TaskRecordBaseSchema>(store: Store, namespace: string, taskId: string, schema: S, principal: Principal): Promise<z.infer<S>> {
  return (await readStoredTaskRecord(store, namespace, taskId, schema, principal)).record;
}

/** `readTaskRecord` with the text read: the base of a later `replaceTaskRecord`. */
export async function readStoredTaskRecord<S extends typeof TaskRecordBaseSchema>(
  store: Store,
  namespace: string,
  taskId: string,
  schema: S,
  principal: Principal,
): Promise<{ record: z.infer<S>; raw: string }> {
  const raw = await store.getRecord(namespace, taskId);
  const record = raw === null ? null : parseTaskRecord(raw, schema);
  if (record === null || !isOwner(record.owner, principal)) throw unknownTask();
  return { record, raw: raw! };
}

function parseTaskRecord<S extends typeof TaskRecordBaseSchema>(raw: string, schema: S): z.infer<S> | null {
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? (parsed.data as z.infer<S>) : null;
  } catch {
    return null;
  }
}

/** What is left of a task's lifetime (a task expires with its promise); at least a second. */
const lifeLeft = (record: z.infer<typeof TaskRecordBaseSchema>) => Math.max(1000, Date.parse(record.createdAt) + record.ttl - Date.now());

/** Writes a task's record for what is left of its lifetime: for a new task (a change goes through `replaceTaskRecord`). */
export async function writeTaskRecord(store: Store, namespace: string, taskId: string, record: z.infer<typeof TaskRecordBaseSchema>): Promise<void> {
  await store.putRecord(namespace, taskId, JSON.stringify(record), lifeLeft(record), record.owner);
}

/**
 * Replaces a task's record only while it still holds `expected`, the text read (Store.replaceRecord):
 * a change another request made meanwhile is not undone, and a record expired meanwhile is never
 * written back. Resolves whether it replaced.
 */
export function replaceTaskRecord(store: Store, namespace: string, taskId: string, expected: string, record: z.infer<typeof TaskRecordBaseSchema>): Promise<boolean> {
  return store.replaceRecord(namespace, taskId, expected, JSON.stringify(record), lifeLeft(record));
}

/** A task's state as seen now. */
interface TaskState {
  status: Task['status'];
  statusMessage?: string | undefined;
  at?: string;
}

/** The task state an NLWeb response stands for: a promise is working, a failure failed (CANCELLED: cancelled), else completed. */
export function stateOf(response: CanonicalResponse): TaskState {
  if (isPromise(response)) {
    const { message, progress } = response.promise;
    const pct = progress !== undefined ? ` (${Math.round(progress * 100)}%)` : '';
    return { status: 'working', ...(message ? { statusMessage: `${message}${pct}` } : pct ? { statusMessage: pct.trim() } : {}) };
  }
  if (response._meta.response_type === 'failure') {
    const error = (response as { error?: { code?: string; message?: string } }).error;
    return { status: error?.code === 'CANCELLED' ? 'cancelled' : 'failed', ...(error?.message ? { statusMessage: error.message } : {}) };
  }
  return { status: 'completed' };
}

/** The one answer for a task id that is unknown, expired or someone else's (MCP Tasks: -32602). */
export const unknownTask = () => new ProtocolError(-32602, 'Unknown or expired task id');


/**
 * MCP tasks (2025-11-25 "Tasks", experimental) over the gateway's promises (NLWeb 4.1.2/4.2): a
 * task-augmented `ask` becomes a promise, and the task id IS the promise token — unguessable and
 * kept in the shared store, so any replica answers `tasks/get`, `tasks/result` and `tasks/cancel`.
 */
export class McpTasks {
  constructor(
    private readonly gateway: Gateway,
    private readonly ttlMs: number = DEFAULT_TTL_MS,
  ) {}

  /** Tasks "Creating Tasks": the CreateTaskResult for the promise a task-augmented `ask` got. */
  async create(response: PromiseResponse, call: McpCall): Promise<CreateTaskResult> {
    const taskId = response.promise.token;
    const record: TaskRecord = { createdAt: new Date().toISOString(), ttl: this.ttlMs, owner: ownerTag(call.principal) };
    await this.gateway.store.putRecord(TASK_NAMESPACE, taskId, JSON.stringify(record), this.ttlMs, record.owner);
    return { task: taskOf(taskId, record, stateOf(response)) };
  }

  /** `tasks/get`: the task's state now, without waiting. */
  async get(taskId: string, call: McpCall): Promise<GetTaskResult> {
    const stored = await this.record(taskId, call);
    const { record } = stored;
    if (record.final) return taskOf(taskId, record, record.final);
    const response = await this.gateway.await({ promise_token: taskId, action: 'checkin' }, callOptions(call));
    return taskOf(taskId, record, await this.observe(taskId, stored, response));
  }

  /**
   * `tasks/result`: blocks until the task is terminal, then answers exactly what the synchronous
   * `ask` would have (a failed or cancelled task: its failure with `isError`), with the
   * related-task `_meta`.
   */
  async result(taskId: string, call: McpCall, signal: AbortSignal): Promise<CallToolResult> {
    const stored = await this.record(taskId, call);
    let response: CanonicalResponse;
    for (;;) {
      if (signal.aborted) throw new ProtocolError(-32800, 'Request cancelled');
      const started = Date.now();
      response = await this.gateway.await({ promise_token: taskId, action: 'checkin', wait_ms: LONG_POLL_MS }, callOptions(call, signal));
      if (!isPromise(response)) break;
      await abortableDelay(Math.max(0, MIN_ROUND_MS - (Date.now() - started)), signal);
    }
    await this.observe(taskId, stored, response);
    // The core's /await answers carry their conversation (`_meta.session_context`) themselves.
    const result = renderNlwebResult(response);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  }

  /** `tasks/cancel`: cancels the promise wherever it runs; a task already terminal is an error (-32602). */
  async cancel(taskId: string, call: McpCall): Promise<CancelTaskResult> {
    const stored = await this.record(taskId, call);
    const { record } = stored;
    if (record.final) throw new ProtocolError(-32602, `Cannot cancel a task that is already ${record.final.status}`);
    const response = await this.gateway.await({ promise_token: taskId, action: 'cancel' }, callOptions(call));
    const state = await this.observe(taskId, stored, response);
    // The core answers a promise that had already settled with its answer: that task was terminal.
    if (state.status !== 'cancelled') throw new ProtocolError(-32602, `Cannot cancel a task that is already ${state.status}`);
    return taskOf(taskId, record, state);
  }

  /** The task's record as read, or -32602 when unknown, expired, or created by another principal (the same error). */
  private record(taskId: string, call: McpCall): Promise<StoredRecord> {
    return readStoredTaskRecord(this.gateway.store, TASK_NAMESPACE, taskId, TaskRecordSchema, call.principal);
  }

  /**
   * The state a response stands for; the first terminal one is remembered with its time, by
   * compare-and-set on the record as read: an end another request remembered while this one waited
   * (a `tasks/result` reads the record before it long-polls) is kept and answered, and a record
   * expired meanwhile stays gone. Only this writes a task's record after `create`, so one try is enough.
   */
  private async observe(taskId: string, stored: StoredRecord, response: CanonicalResponse): Promise<TaskState> {
    const state = stateOf(response);
    const { record, raw } = stored;
    if (state.status === 'working' || state.status === 'input_required' || record.final) return record.final ?? state;
    const final = { status: state.status, ...(state.statusMessage ? { statusMessage: state.statusMessage } : {}), at: new Date().toISOString() };
    if (await replaceTaskRecord(this.gateway.store, TASK_NAMESPACE, taskId, raw, { ...record, final } as TaskRecord)) return final;
    const now = await this.gateway.store.getRecord(TASK_NAMESPACE, taskId);
    return (now === null ? null : parseTaskRecord(now, TaskRecordSchema))?.final ?? final;
  }
}

/** A Task as the 2025-11-25 schema has it (`TaskSchema`: every timestamp ISO 8601, ttl in ms). */
function taskOf(taskId: string, record: TaskRecord, state: TaskState): Task {
  return {
    taskId,
    status: state.status,
    ...(state.statusMessage ? { statusMessage: state.statusMessage } : {}),
    createdAt: record.createdAt,
    lastUpdatedAt: state.at ?? record.createdAt,
    ttl: record.ttl,
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
}
