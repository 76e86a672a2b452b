import { TaskState, type Message, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { AgentEvent } from '../../src/core/events.ts';
import type { Elicitation, ResultItem } from '../../src/protocol/nlweb/index.ts';

/**
 * A2A 1.0 objects as canonical events (docs/a2a.md "Mapping", right to left): a data part holding an
 * object is a result item; text parts together are the summary (a `SearchSummary` item); a file part
 * is a `MediaObject` item naming it. Task states: COMPLETED ends the answer, INPUT_REQUIRED is an
 * elicitation, FAILED/REJECTED an error, CANCELED a CANCELLED error, AUTH_REQUIRED UNAUTHORIZED.
 */

/** Parts as result items plus the text they carry. */
export function partsToItems(parts: Part[]): { items: ResultItem[]; text: string[] } {
  const items: ResultItem[] = [];
  const text: string[] = [];
  for (const part of parts) {
    const c = part.content;
    if (c?.$case === 'text') text.push(c.value);
    else if (c?.$case === 'data') {
      if (c.value !== null && typeof c.value === 'object' && !Array.isArray(c.value)) items.push(c.value as ResultItem);
      else if (Array.isArray(c.value)) items.push(...c.value.filter((v): v is ResultItem => v !== null && typeof v === 'object' && !Array.isArray(v)));
    } else if (c?.$case === 'url') {
      items.push({ '@type': 'MediaObject', url: c.value, ...(part.filename ? { name: part.filename } : {}), ...(part.mediaType ? { encodingFormat: part.mediaType } : {}) });
    } else if (c?.$case === 'raw') {
      items.push({ '@type': 'MediaObject', name: part.filename || 'attachment', ...(part.mediaType ? { encodingFormat: part.mediaType } : {}), description: 'Binary content the A2A agent returned (not carried through the gateway)' });
    }
  }
  return { items, text };
}

/** The text of a status message (for progress, elicitation and error texts). */
export function statusText(status: TaskStatus | undefined): string | undefined {
  const text = partsToItems(status?.message?.parts ?? []).text.join('\n').trim();
  return text || undefined;
}

/** The summary item for collected text, if any. */
export function summaryItem(text: string[]): ResultItem[] {
  const joined = text.join('\n').trim();
  return joined ? [{ '@type': 'SearchSummary', text: joined }] : [];
}

/** An INPUT_REQUIRED status as an elicitation: its text, and questions carried in a data part when present. */
export function elicitationOf(status: TaskStatus | undefined): Elicitation {
  const text = statusText(status);
  const questions = (status?.message?.parts ?? [])
    .flatMap((p) => (p.content?.$case === 'data' && Array.isArray((p.content.value as { questions?: unknown })?.questions) ? [(p.content.value as { questions: unknown[] }).questions] : []))
    .flat()
    .filter((q): q is { id: string; text: string; type: string } => typeof q === 'object' && q !== null && typeof (q as { id?: unknown }).id === 'string' && typeof (q as { text?: unknown }).text === 'string' && typeof (q as { type?: unknown }).type === 'string');
  return { ...(text ? { text } : { text: 'The agent needs more information.' }), ...(questions.length > 0 ? { questions } : {}) };
}

/** The terminal event of a task state, or undefined while it works (SUBMITTED, WORKING). */
export function terminalEvent(status: TaskStatus | undefined): AgentEvent | undefined {
  const text = statusText(status);
  switch (status?.state) {
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return { type: 'elicitation', elicitation: elicitationOf(status) };
    case TaskState.TASK_STATE_FAILED:
    case TaskState.TASK_STATE_REJECTED:
      return { type: 'error', code: 'UPSTREAM_ERROR', message: text ?? 'The A2A agent reports that the task failed' };
    case TaskState.TASK_STATE_CANCELED:
      return { type: 'error', code: 'CANCELLED', message: text ?? 'The A2A agent cancelled the task' };
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return { type: 'error', code: 'UNAUTHORIZED', message: 'The A2A agent asks for authentication the gateway cannot give' };
    default:
      return undefined;
  }
}

/** True while a task still works (the gateway then keeps a promise for it). */
export function isWorking(task: Task): boolean {
  const s = task.status?.state;
  return s === TaskState.TASK_STATE_SUBMITTED || s === TaskState.TASK_STATE_WORKING || s === TaskState.TASK_STATE_UNSPECIFIED;
}

/** A finished task (or a direct Message reply) as canonical events: its items, the summary, the end. */
export function* replyEvents(reply: Task | Message): Generator<AgentEvent> {
  if (!('status' in reply)) {
    const { items, text } = partsToItems(reply.parts);
    for (const item of [...summaryItem(text), ...items]) yield { type: 'result', item };
    return;
  }
  const parts = reply.artifacts.flatMap((a) => a.parts);
  const { items, text } = partsToItems(parts);
  const terminal = terminalEvent(reply.status);
  for (const item of [...summaryItem(text), ...items]) yield { type: 'result', item };
  if (terminal) yield terminal;
}
