import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';

/** The SDK's own client for the A2A agent at `baseUrl` (reads its card), preferring one transport. */
export async function a2aClient(
  baseUrl: string,
  transport: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC',
  headers: Record<string, string> = {},
  baseFetch: typeof fetch = fetch,
): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [k, v] of Object.entries(headers)) merged.set(k, v);
    return baseFetch(input, { ...init, headers: merged });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [transport],
    }),
  );
  return factory.createFromUrl(baseUrl);
}

/** A text part. */
export const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
/** A data part. */
export const data = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });

/** A user message, optionally in a context or continuing a task. */
export function userMessage(parts: Part[] | string, opts: { contextId?: string; taskId?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: opts.contextId ?? '',
    taskId: opts.taskId ?? '',
    role: Role.ROLE_USER,
    parts: typeof parts === 'string' ? [text(parts)] : parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** SendMessage params for a message. */
export const send = (message: Message, returnImmediately = false) => ({
  tenant: '',
  message,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});

/** The task a SendMessage returned (the gateway always answers with a task). */
export function asTask(result: Message | Task): Task {
  if (!('status' in result)) throw new Error('expected a task, got a message');
  return result;
}

/** The data parts of a task's results artifact. */
export const dataParts = (task: Task): unknown[] =>
  (task.artifacts[0]?.parts ?? []).flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));
/** The text parts of a task's results artifact. */
export const textParts = (task: Task): string[] =>
  (task.artifacts[0]?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));

/** Collects a stream's events. */
export async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** The task state of the last status update (or task) in a stream. */
export function finalState(events: StreamResponse[]): TaskState | undefined {
  for (const e of [...events].reverse()) {
    if (e.payload?.$case === 'statusUpdate') return e.payload.value.status?.state;
    if (e.payload?.$case === 'task') return e.payload.value.status?.state;
  }
  return undefined;
}

export { TaskState };
