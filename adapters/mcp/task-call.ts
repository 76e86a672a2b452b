import type { Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { McpToolResult } from './result-mapping.ts';

/** What the gateway reads of a 2025-11-25 Task (`CreateTaskResult.task`, `GetTaskResult`). */
const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: z.string().optional(),
  pollInterval: z.number().optional(),
});
const CreateTaskResultSchema = z.looseObject({ task: TaskSchema });
const ToolResultSchema = z.looseObject({ content: z.array(z.looseObject({})).optional(), structuredContent: z.unknown().optional(), isError: z.boolean().optional() });
const EmptySchema = z.looseObject({});

/** Polling stays within these bounds whatever `pollInterval` the upstream asks for. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 5000;

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(timer), reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Calls a tool whose upstream listing says `execution.taskSupport: "required"` (MCP 2025-11-25
 * "Tasks › Tool-Level Negotiation": such a tool must be called task-augmented): creates the task,
 * polls `tasks/get` at the upstream's `pollInterval` until it is terminal, then fetches
 * `tasks/result`. A cancel of the call cancels the task upstream (`tasks/cancel`). To the gateway's
 * own client the call is an ordinary one.
 */
export async function callAsTask(client: Client, name: string, args: Record<string, unknown>, meta: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<McpToolResult> {
  const opts = { signal, timeout: timeoutMs };
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: timeoutMs }, _meta: meta } } as never, CreateTaskResultSchema, opts);
  const { taskId } = created.task;
  let task = created.task;
  try {
    while (!TERMINAL.has(task.status)) {
      await pause(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? MIN_POLL_MS)), signal);
      task = await client.request({ method: 'tasks/get', params: { taskId } } as never, TaskSchema, opts);
    }
  } catch (err) {
    if (signal.aborted) await client.request({ method: 'tasks/cancel', params: { taskId } } as never, EmptySchema, { timeout: 5000 }).catch(() => undefined);
    throw err;
  }
  return (await client.request({ method: 'tasks/result', params: { taskId } } as never, ToolResultSchema, opts)) as McpToolResult;
}
