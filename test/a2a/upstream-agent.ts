/**
 * A real A2A 1.0 agent built with the SDK's own server (DefaultRequestHandler, its JSON-RPC and
 * HTTP+JSON Express handlers, its card handler), for the outbound adapter and cross-protocol suites.
 *
 * Behaviours, by the first keyword in the message text:
 * - default: COMPLETED with one artifact: a text part ("Found 2 dishes for <text>") and two data
 *   parts (`{name, query, contextId}`).
 * - `slow`: WORKING, then COMPLETED after `slowMs` (default 1500); cancellable meanwhile.
 * - `ask`: INPUT_REQUIRED ("Which cuisine?"); the next message on that task COMPLETES it, naming it.
 * - `fail`: FAILED with a status message.
 * - `reply`: a direct Message (no task).
 * `cancelled` holds the ids of tasks a CancelTask reached. `received` records every user message (text, data, contextId, taskId) and the request headers.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express from 'express';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState, type AgentCard, type Message, type Part, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface ReceivedMessage {
  text: string;
  data: unknown[];
  contextId: string;
  taskId: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface UpstreamA2aOptions {
  /** Port to listen on (default: a free one). */
  port?: number;
  streaming?: boolean;
  slowMs?: number;
  /** Lists the interfaces on this origin instead of the agent's own (a card pointing elsewhere). */
  interfaceOrigin?: string;
  transport?: 'JSONRPC' | 'HTTP+JSON';
}

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
const agentMessage = (parts: Part[], taskId: string, contextId: string): Message => ({
  messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [],
});

class Executor implements AgentExecutor {
  readonly received: ReceivedMessage[] = [];
  readonly cancelled = new Set<string>();
  constructor(private readonly slowMs: number) {}

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.cancelled.add(taskId);
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined }));
  };

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = rc;
    const msg = rc.userMessage;
    const said = msg.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join(' ');
    const dataIn = msg.parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));
    const headers = (rc.context.state.get('headers') ?? {}) as Record<string, string | string[] | undefined>;
    this.received.push({ text: said, data: dataIn, contextId, taskId: msg.taskId, headers });
    const status = (state: TaskState, parts?: Part[]) => ({ state, message: parts ? agentMessage(parts, taskId, contextId) : undefined, timestamp: new Date().toISOString() });
    if (/\breply\b/.test(said)) {
      bus.publish(AgentEvent.message(agentMessage([text(`Direct reply to ${said}`)], '', contextId)));
      bus.finished();
      return;
    }
    const task: Task = rc.task ?? { id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [msg], metadata: undefined };
    bus.publish(AgentEvent.task(task));
    const update = (state: TaskState, parts?: Part[]) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, parts), metadata: undefined }));
    if (/\bask\b/.test(said) && !rc.task) {
      update(TaskState.TASK_STATE_INPUT_REQUIRED, [text('Which cuisine?'), data({ questions: [{ id: 'cuisine', text: 'Which cuisine?', type: 'free_text' }] })]);
      return;
    }
    if (/\bfail\b/.test(said)) {
      update(TaskState.TASK_STATE_FAILED, [text('The kitchen is closed')]);
      return;
    }
    update(TaskState.TASK_STATE_WORKING, [text('Cooking')]);
    if (/\bslow\b/.test(said)) {
      const until = Date.now() + this.slowMs;
      while (Date.now() < until && !this.cancelled.has(taskId)) await new Promise((r) => setTimeout(r, 25));
      if (this.cancelled.has(taskId)) return;
    }
    const items = [1, 2].map((i) => ({ '@type': 'Recipe', name: `Dish ${i}`, query: said, contextId }));
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId: 'answer', name: 'answer', description: '', parts: [text(`Found 2 dishes for ${said}`), ...items.map(data)], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    update(TaskState.TASK_STATE_COMPLETED);
  }
}

/** Starts the agent on a free loopback port. */
export async function startUpstreamA2a(opts: UpstreamA2aOptions = {}): Promise<{ url: string; received: ReceivedMessage[]; cancelled: Set<string>; setInterfaceOrigin(origin: string): void; close(): Promise<void> }> {
  const executor = new Executor(opts.slowMs ?? 1500);
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(opts.port ?? 0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  const origin = opts.interfaceOrigin ?? url;
  const card: AgentCard = {
    name: 'Upstream kitchen',
    description: 'An A2A agent that suggests dishes',
    supportedInterfaces: [
      { url: `${origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: `${origin}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    ].filter((i) => !opts.transport || i.protocolBinding === opts.transport),
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: opts.streaming ?? true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'dishes', name: 'Dish ideas', description: 'Suggests dishes', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    received: executor.received,
    cancelled: executor.cancelled,
    // The card is served as this object: moving its interfaces (behind a proxy) takes effect at once.
    setInterfaceOrigin: (next: string) => {
      card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: next + new URL(i.url).pathname }));
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
