import { Task, TaskState, type Message, type SendMessageRequest } from '@a2a-js/sdk';
import { GatewayError } from '../../base/errors.ts';
import { newToken } from '../../core/ids.ts';
import { contextConversation } from './contexts.ts';
import type { HandlerDeps } from './handler.ts';
import { agentMessage, dataPart, resultsArtifact, textPart } from './render.ts';
import { callOptions, type Caller } from './turn.ts';

/**
 * Skills other than `ask` (the agent's structured tools, listed on its card) are called by naming
 * the skill in the message's `metadata.skill` (or the request's): the object data parts, merged, are
 * the tool's arguments; the result is a COMPLETED task whose artifact holds the result's text and its
 * structured value (FAILED when the tool reports an error). A2A 1.0 has no field to pick a skill, so
 * this is the gateway's convention (docs/a2a.md); a message without it is an ask.
 */

/** The skill a message names, when it is not `ask`. */
export function skillOf(req: SendMessageRequest): string | undefined {
  const named: unknown = req.message?.metadata?.skill ?? req.metadata?.skill;
  return typeof named === 'string' && named !== '' && named !== 'ask' ? named : undefined;
}

function argumentsOf(message: Message): Record<string, unknown> {
  const objects = message.parts.flatMap((p) => {
    const v: unknown = p.content?.$case === 'data' ? p.content.value : undefined;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? [v as Record<string, unknown>] : [];
  });
  return Object.fromEntries(objects.flatMap((o) => Object.entries(o)).filter(([k]) => k !== '__proto__'));
}

/** Runs the named skill (a tool call) and stores the finished task for this caller. */
export async function runSkill(deps: HandlerDeps, caller: Caller, req: SendMessageRequest, skill: string): Promise<Task> {
  const { gateway, agent, tasks } = deps;
  const message = req.message as Message;
  if (message.taskId) throw new GatewayError('INVALID_REQUEST', 'A skill call starts a new task: leave taskId out');
  const tool = (await gateway.listTools(agent)).find((t) => t.toolName === skill);
  if (!tool) throw new GatewayError('TOOL_NOT_FOUND', `Agent "${agent}" has no skill "${skill}"`);
  // A new context for the tool call unless the message names one (a tool call joins no conversation).
  const contextId = message.contextId || newToken('ctx');
  const conversationId = message.contextId ? contextConversation(message.contextId) : undefined;
  const result = await gateway.callTool(agent, tool.toolName, argumentsOf(message), callOptions(agent, caller));
  const id = newToken('task');
  const text = result.text ?? (result.isError ? 'The tool reported an error' : 'Done');
  const parts = [textPart(text), ...(result.structured !== undefined ? [dataPart(result.structured)] : [])];
  const task: Task = {
    id,
    contextId,
    status: { state: result.isError ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_COMPLETED, message: agentMessage([textPart(text)], id, contextId), timestamp: new Date().toISOString() },
    artifacts: result.isError ? [] : [resultsArtifact(parts)],
    history: [{ ...message, taskId: id, contextId }],
    metadata: { skill },
  };
  await tasks.put({ id, contextId, owner: caller.principal.id, agent, ...(conversationId ? { conversationId } : {}), task: Task.toJSON(task) });
  return task;
}
