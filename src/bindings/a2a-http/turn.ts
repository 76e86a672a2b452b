import type { Message, SendMessageRequest } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { TaskState } from '@a2a-js/sdk';
import type { CallOptions } from '../../core/gateway-types.ts';
import { newToken } from '../../core/ids.ts';
import type { Principal } from '../../core/principal.ts';
import type { AskRequest, CanonicalResponse } from '../../protocol/nlweb/index.ts';
import { contextConversation } from './contexts.ts';
import { taskNotFound } from './errors.ts';
import type { TaskBase } from './render.ts';
import { askFromMessage } from './request.ts';
import { TaskRecords, type StoredTask } from './tasks.ts';

/** Messages kept in a task's history (follow-ups to INPUT_REQUIRED add to it). */
const MAX_HISTORY = 20;

/** Who calls, as every core call needs it (bindings' callerOf) plus the client's abort signal. */
export interface Caller {
  principal: Principal;
  requestId: string;
  credentials?: { authorization?: string };
  signal: AbortSignal;
}

/** One message turn, ready to ask: the task it makes or continues, its context (when known) and the canonical request. */
export interface Turn {
  /** The task id (new, or the task waiting for input). */
  id: string;
  /** The context the client or the continued task named; undefined for a new context (see `taskBase`). */
  contextId?: string;
  conversationId?: string;
  ask: AskRequest;
  /** The message, and the history it follows (a continued task's). */
  message: Message;
  earlier: Message[];
  /** The continued task's record as read: the turn's task replaces exactly that, or nothing (`notWaiting`). */
  from?: StoredTask;
}

/** The core call options for a caller (the path's agent, principal, request id, credentials, signal). */
export function callOptions(agent: string, caller: Caller, signal: AbortSignal = caller.signal): CallOptions {
  return { agent, principal: caller.principal, requestId: caller.requestId, signal, ...(caller.credentials ? { credentials: caller.credentials } : {}) };
}

/**
 * A2A 1.0 §3.1.1 the turn a message starts: a new task, or — when it names a task of this caller
 * waiting for input (§3.4.3 multi-turn) — that task again, in its context. An unknown or someone
 * else's task is "task not found"; a task not waiting for input cannot take a message.
 */
export async function openTurn(tasks: TaskRecords, caller: Caller, req: SendMessageRequest): Promise<Turn> {
  const message = req.message as Message;
  let from: StoredTask | null = null;
  if (message.taskId) {
    from = await tasks.read(message.taskId, caller.principal);
    if (!from) throw taskNotFound();
  }
  const followUp = from?.record;
  if (followUp) {
    if (TaskRecords.taskOf(followUp).status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new UnsupportedOperationError('The task is not waiting for input: send a new message without taskId');
    }
    if (message.contextId && message.contextId !== followUp.contextId) throw new RequestMalformedError('contextId does not match the task\'s context');
  }
  const contextId = followUp?.contextId ?? (message.contextId || undefined);
  const conversationId = followUp ? followUp.conversationId : contextId !== undefined ? contextConversation(contextId) : undefined;
  const ask = askFromMessage(req, conversationId);
  return {
    id: followUp?.id ?? newToken('task'),
    ...(contextId !== undefined ? { contextId } : {}),
    ...(conversationId !== undefined ? { conversationId } : {}),
    ask,
    message,
    earlier: followUp ? TaskRecords.taskOf(followUp).history : [],
    ...(from ? { from } : {}),
  };
}

/**
 * The answer to a message for a task whose record changed while the message was asked: cancelled,
 * or answered by another message first. That change stands (a terminal task never changes state
 * again), so this message is refused as it would have been had it come a moment later.
 */
export function notWaiting(): UnsupportedOperationError {
  return new UnsupportedOperationError('The task is no longer waiting for input: it was cancelled or answered meanwhile');
}

/**
 * The task a turn makes once its conversation is known: a new context is named after the
 * conversation the answer started (contexts.ts), or minted when the answer belongs to none.
 */
export function taskBase(turn: Turn, conversationId: string | undefined): TaskBase {
  const contextId = turn.contextId ?? conversationId ?? newToken('ctx');
  const history = [...turn.earlier, { ...turn.message, taskId: turn.id, contextId }].slice(-MAX_HISTORY);
  return { id: turn.id, contextId, history };
}

/** The gateway conversation a response belongs to (`_meta.session_context.conversation_id`). */
export function conversationOf(response: CanonicalResponse): string | undefined {
  const id = response._meta.session_context?.conversation_id;
  return typeof id === 'string' ? id : undefined;
}
