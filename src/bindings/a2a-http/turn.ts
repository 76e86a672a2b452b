import type { Message, SendMessageRequest } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { TaskState } from '@a2a-js/sdk';
import type { CallOptions, Gateway } from '../../core/gateway-types.ts';
import { newToken } from '../../core/ids.ts';
import type { Principal } from '../../core/principal.ts';
import type { AskRequest, CanonicalResponse } from '../../protocol/nlweb/index.ts';
import { openContext } from './contexts.ts';
import { taskNotFound } from './errors.ts';
import type { TaskBase } from './render.ts';
import { askFromMessage } from './request.ts';
import { TaskRecords, type TaskRecord } from './tasks.ts';

/** Messages kept in a task's history (follow-ups to INPUT_REQUIRED add to it). */
const MAX_HISTORY = 20;

/** Who calls, as every core call needs it (bindings' callerOf) plus the client's abort signal. */
export interface Caller {
  principal: Principal;
  requestId: string;
  credentials?: { authorization?: string };
  signal: AbortSignal;
}

/** One message turn, ready to ask: the task it makes or continues, its context and the canonical request. */
export interface Turn {
  base: TaskBase;
  conversationId?: string;
  ask: AskRequest;
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
export async function openTurn(gateway: Gateway, tasks: TaskRecords, caller: Caller, req: SendMessageRequest): Promise<Turn> {
  const message = req.message as Message;
  let followUp: TaskRecord | null = null;
  if (message.taskId) {
    followUp = await tasks.get(message.taskId, caller.principal);
    if (!followUp) throw taskNotFound();
    if (TaskRecords.taskOf(followUp).status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new UnsupportedOperationError('The task is not waiting for input: send a new message without taskId');
    }
    if (message.contextId && message.contextId !== followUp.contextId) throw new RequestMalformedError('contextId does not match the task\'s context');
  }
  const context = followUp
    ? { contextId: followUp.contextId, ...(followUp.conversationId ? { conversationId: followUp.conversationId } : {}) }
    : await openContext(gateway, caller.principal, message.contextId || undefined);
  const ask = askFromMessage(req, context.conversationId);
  const id = followUp?.id ?? newToken('task');
  const earlier = followUp ? TaskRecords.taskOf(followUp).history : [];
  const history = [...earlier, { ...message, taskId: id, contextId: context.contextId }].slice(-MAX_HISTORY);
  return { base: { id, contextId: context.contextId, history }, ask, ...(context.conversationId ? { conversationId: context.conversationId } : {}) };
}

/** The gateway conversation a response belongs to (`_meta.session_context.conversation_id`). */
export function conversationOf(response: CanonicalResponse): string | undefined {
  const id = response._meta.session_context?.conversation_id;
  return typeof id === 'string' ? id : undefined;
}
