import { hash } from 'node:crypto';
import { Message, Task } from '@a2a-js/sdk';
import { isVerifiedId } from '../../core/ownership.ts';
import type { Principal } from '../../core/principal.ts';
import type { CanonicalResponse } from '../../protocol/nlweb/index.ts';
import { VERIFIED_OWNER_MARK, type Store } from '../../store/store.ts';
import { taskFor, type Stamp } from './render.ts';

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
    const raw = await this.store.getRecord(NAMESPACE, keyOf(taskId, principal.id));
    if (raw === null) return null;
    const record = JSON.parse(raw) as TaskRecord;
    return record.owner === principal.id && record.id === taskId ? record : null;
  }

  /** Stores the record with its rendered task (TTL = the promise TTL), keeping the stored task under MAX_STORED_TASK_BYTES. */
  async put(record: TaskRecord & { task: unknown }): Promise<void> {
    const { answer: _replaced, ...full } = record;
    let text = JSON.stringify(full);
    if (text.length > MAX_STORED_TASK_BYTES) text = JSON.stringify({ ...full, task: { ...(full.task as Record<string, unknown>), artifacts: [] } });
    if (text.length > MAX_STORED_TASK_BYTES) text = JSON.stringify({ ...full, task: { ...(full.task as Record<string, unknown>), artifacts: [], history: [] } });
    await this.store.putRecord(NAMESPACE, keyOf(record.id, record.owner), text, this.ttlMs);
  }

  /**
   * Stores a SendMessage's task compactly (`answer`); `task` is the task it renders to, kept
   * rendered (and trimmed) instead when the compact record is over MAX_STORED_TASK_BYTES.
   */
  async putAnswer(record: Omit<TaskRecord, 'task' | 'answer'>, answer: StoredAnswer, task: Task): Promise<void> {
    const text = JSON.stringify({ ...record, answer });
    if (text.length > MAX_STORED_TASK_BYTES) return this.put({ ...record, task: Task.toJSON(task) });
    await this.store.putRecord(NAMESPACE, keyOf(record.id, record.owner), text, this.ttlMs);
  }

  /** The stored task as an SDK object. */
  static taskOf(record: TaskRecord): Task {
    const { answer } = record;
    if (record.task !== undefined || !answer) return Task.fromJSON(record.task);
    return taskFor(answer.response, { id: record.id, contextId: record.contextId, history: answer.history.map((m) => Message.fromJSON(m)) }, answer.stamp);
  }
}
