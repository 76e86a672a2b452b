import { hash } from 'node:crypto';
import { Message, Task, TaskState } from '@a2a-js/sdk';
import { isVerifiedId, ownerTag } from '../../core/ownership.ts';
import type { Principal } from '../../core/principal.ts';
import type { CanonicalResponse } from '../../protocol/nlweb/index.ts';
import { VERIFIED_OWNER_MARK, type RecordWrite, type Store } from '../../store/store.ts';
import { updateRecord } from '../../store/update-record.ts';
import { isTerminal, taskFor, type Stamp } from './render.ts';

/**
 * A2A tasks (spec 1.0 §4.1.1) ↔ the gateway's promises, through the shared store so every replica
 * serves every task. A task record names its owner (the principal that created it): anyone else
 * gets "task not found", exactly as for an id that never existed. The record holds the promise token
 * while the answer is pending (never shown to the client: the task id is a separate random id) and
 * the final task once known, because a promise is forgotten soon after its answer was read.
 *
 * A SendMessage's task is kept compactly (`answer`): the canonical response and what rendering it
 * took, rendered again on read. Every SendMessage stores one for the promise TTL, and the rendered
 * task repeats the answer's text and items (as UTF-16 when the text is not Latin-1): keeping the
 * rendered copies was a fifth of the CPU of a SendMessage under load, in the allocation and the
 * garbage collection of what the memory store holds (issue 25).
 *
 * A record is created once (a new task id) and from then on changed only by compare-and-set on the
 * text it was read as (Store.replaceRecord): two requests on any replicas (a cancel and a stream's
 * end, two answers to one question) never undo each other, a task in a terminal state keeps it
 * (A2A 1.0 §3.1.5), and a record expired meanwhile is never written back.
 */

const NAMESPACE = 'a2a-task';
/**
 * Largest task record kept for later GetTask calls (every SendMessage stores one for the promise TTL,
 * so this bounds what a caller can make the store hold per request); beyond it the copy loses its
 * artifacts, then its history. The answer the client got first is always whole.
 */
export const MAX_STORED_TASK_BYTES = 65_536;

export interface TaskRecord {
  id: string;
  contextId: string;
  /** Principal id of the caller that created the task. */
  owner: string;
  agent: string;
  conversationId?: string;
  /** The gateway promise that will answer (while WORKING through a promise). */
  promiseToken?: string;
  /** Set while a stream on some replica produces the answer (cancel goes through store pub/sub). */
  streaming?: boolean;
  /** The task as last rendered, in A2A JSON (Task.toJSON); absent when `answer` holds it. */
  task?: unknown;
  /** The task of a SendMessage, compactly: rendered again from it on read (`taskOf`). */
  answer?: StoredAnswer;
}

/** What renders a SendMessage's task again: the canonical response, the stamp and the history (A2A JSON). */
export interface StoredAnswer {
  response: CanonicalResponse;
  stamp: Stamp;
  history: unknown[];
}

/** A record as read, with the stored text a compare-and-set of it compares against. */
export interface StoredTask {
  record: TaskRecord;
  raw: string;
}

const hashOf = (taskId: string) => hash('sha256', taskId, 'base64url');
/** A task id as the gateway mints it (`newToken('task')`): 128 random bits, a valid key as it is. */
const MINTED_ID = /^task_[A-Za-z0-9_-]{22}$/;

/**
 * Store key of a task id: the id itself when the gateway minted it, else its SHA-256 (a client-sent
 * id of any charset makes a bounded key, and never one of a minted id's length); under
 * VERIFIED_OWNER_MARK for a verified owner, so the memory store's retention keeps its tasks apart
 * from anonymous callers' and anonymous traffic never pushes them out (issue 24). A caller whose
 * class differs from the owner's is not the owner: its lookup misses, as "task not found" must.
 */
function keyOf(taskId: string, ownerId: string): string {
  const key = MINTED_ID.test(taskId) ? taskId : hashOf(taskId);
  return isVerifiedId(ownerId) ? `${VERIFIED_OWNER_MARK}${key}` : key;
}

/** The cancel-channel name of a streamed task (store pub/sub is shared with promise tokens). */
export const streamCancelTopic = (taskId: string) => `a2a-stream:${hashOf(taskId)}`;

/** Reads and writes task records for one caller. */
export class TaskRecords {
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
  ) {}

  /** The record of `taskId` when `principal` owns it; null when unknown, expired or someone else's (§3.3.2 TaskNotFound). */
  async get(taskId: string, principal: Principal): Promise<TaskRecord | null> {
    return (await this.read(taskId, principal))?.record ?? null;
  }

  /** Like `get`, with the text read: the base of a later `replace` or `update`. */
  read(taskId: string, principal: Principal): Promise<StoredTask | null> {
    return this.readOf(taskId, principal.id);
  }

  /** Creates the record of a new task, its rendered task under MAX_STORED_TASK_BYTES; resolves the text stored. */
  async put(record: TaskRecord & { task: unknown }): Promise<string> {
    const text = textOf(record);
    await this.store.putRecord(NAMESPACE, keyOf(record.id, record.owner), text, this.ttlMs, ownerTag({ id: record.owner }));
    return text;
  }

  /**
   * Creates a SendMessage's task record compactly (`answer`); `task` is the task it renders to, kept
   * rendered (and trimmed) instead when the compact record is over MAX_STORED_TASK_BYTES.
   */
  async putAnswer(record: Omit<TaskRecord, 'task' | 'answer'>, answer: StoredAnswer, task: Task): Promise<string> {
    const write = this.answerWrite(record, answer, task);
    await this.store.putRecord(write.namespace, write.id, write.value, write.ttlMs, write.owner);
    return write.value;
  }

  /** The store write `putAnswer` makes, for the core to make with the conversation turn (AskOptions.recordWithAnswer). */
  answerWrite(record: Omit<TaskRecord, 'task' | 'answer'>, answer: StoredAnswer, task: Task): RecordWrite & { owner: string } {
    return { namespace: NAMESPACE, id: keyOf(record.id, record.owner), value: textOf({ ...record, answer }, task), ttlMs: this.ttlMs, owner: ownerTag({ id: record.owner }) };
  }

  /**
   * Replaces the record read as `from` with `next` (`rendered`: the task it renders to, when known)
   * only while it still is that record: one compare-and-set. Resolves the text stored, or null when
   * another request changed the record meanwhile or it is gone.
   */
  async replace(from: StoredTask, next: TaskRecord, rendered?: Task): Promise<string | null> {
    const text = textOf(next, rendered);
    return (await this.store.replaceRecord(NAMESPACE, keyOf(from.record.id, from.record.owner), from.raw, text, this.ttlMs)) ? text : null;
  }

  /**
   * Changes the record read as `from` by compare-and-set: `change` makes the next record from the one
   * stored, or null to leave it as it is. When another request changed it meanwhile, it is read again
   * and `change` asked again (a few times). Resolves the record as it now stands and whether it holds
   * this change; null when it is gone (expired: never written back).
   */
  async update(from: StoredTask, change: (current: TaskRecord) => TaskRecord | null | Promise<TaskRecord | null>): Promise<{ now: StoredTask; changed: boolean } | null> {
    const { id, owner } = from.record;
    const codec = { read: (raw: string) => recordOf(raw, id, owner), write: (record: TaskRecord) => textOf(record) };
    const result = await updateRecord(this.store, NAMESPACE, keyOf(id, owner), { value: from.record, raw: from.raw }, codec, change, this.ttlMs);
    return result && { now: { record: result.now.value, raw: result.now.raw }, changed: result.changed };
  }

  /** The stored task as an SDK object. */
  static taskOf(record: TaskRecord): Task {
    const { answer } = record;
    if (record.task !== undefined || !answer) return Task.fromJSON(record.task);
    return taskFor(answer.response, { id: record.id, contextId: record.contextId, history: answer.history.map((m) => Message.fromJSON(m)) }, answer.stamp);
  }

  /** Whether the record's task is in a terminal state: A2A says it never changes state again. */
  static ended(record: TaskRecord): boolean {
    return isTerminal(TaskRecords.taskOf(record).status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
  }

  private async readOf(taskId: string, ownerId: string): Promise<StoredTask | null> {
    const raw = await this.store.getRecord(NAMESPACE, keyOf(taskId, ownerId));
    const record = raw === null ? null : recordOf(raw, taskId, ownerId);
    return record && { record, raw: raw! };
  }
}

/** The stored task `taskId` of `ownerId`; null when the key holds another's (a hashed id's collision, another class). */
function recordOf(raw: string, taskId: string, ownerId: string): TaskRecord | null {
  const record = JSON.parse(raw) as TaskRecord;
  return record.owner === ownerId && record.id === taskId ? record : null;
}

/**
 * The stored text of a record: compact (`answer`, no `task`) while under MAX_STORED_TASK_BYTES, else
 * its task rendered (`rendered`, or rendered here), losing its artifacts, then its history, to fit.
 */
function textOf(record: TaskRecord, rendered?: Task): string {
  if (record.answer && record.task === undefined) {
    const compact = JSON.stringify(record);
    if (compact.length <= MAX_STORED_TASK_BYTES) return compact;
    record = { ...record, task: Task.toJSON(rendered ?? TaskRecords.taskOf(record)) };
  }
  const { answer: _replaced, ...full } = record;
  let text = JSON.stringify(full);
  if (text.length > MAX_STORED_TASK_BYTES) text = JSON.stringify({ ...full, task: { ...(full.task as Record<string, unknown>), artifacts: [] } });
  if (text.length > MAX_STORED_TASK_BYTES) text = JSON.stringify({ ...full, task: { ...(full.task as Record<string, unknown>), artifacts: [], history: [] } });
  return text;
}
