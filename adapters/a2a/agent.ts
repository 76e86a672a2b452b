import { UpstreamClient } from '../../src/core/upstream/index.ts';
import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { AdapterDeps, Agent, AgentDescription, CallContext, CommonAgentConfig } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import type { Client } from '@a2a-js/sdk/client';
import type { A2aAdapterConfig } from './config.ts';
import { A2aConnection, type CallScope } from './connection.ts';
import { isWorking, partsToItems, replyEvents, statusText, summaryItem, terminalEvent } from './mapping.ts';

/** A configured `a2a` agent: the common settings plus the kind's own. */
export type A2aAgentConfig = A2aAdapterConfig & CommonAgentConfig;

/** Conversation attrs: the upstream's contextId, and the task waiting for input (multi-turn, §3.4.3). */
const CONTEXT_ATTR = 'a2a.contextId';
const INPUT_TASK_ATTR = 'a2a.inputTaskId';

/** What the adapter hands the core as an upstream promise token: the upstream task it follows. */
const packToken = (taskId: string) => JSON.stringify({ a2a: 1, taskId });
function unpackToken(token: string): string {
  try {
    const v = JSON.parse(token) as { a2a?: number; taskId?: unknown };
    if (v.a2a === 1 && typeof v.taskId === 'string') return v.taskId;
  } catch {
    // not ours: fall through
  }
  throw new GatewayError('PROMISE_NOT_FOUND', 'Unknown upstream task');
}

/**
 * An upstream A2A 1.0 agent through the official SDK's client (docs/a2a.md "A2A agents behind the
 * gateway"): the card says which transport and whether it streams; an ask is one message (text part
 * and, for filters, a data part) in the conversation's upstream context; a task still working when
 * the reply ends becomes a gateway promise that `await` follows with GetTask (and cancels with
 * CancelTask). Every request goes through the shared upstream HTTP policy (src/core/upstream).
 */
export class A2aAgent implements Agent {
  readonly kind = 'a2a';
  readonly name: string;
  private readonly connection: A2aConnection;

  constructor(
    private readonly config: A2aAgentConfig,
    deps: AdapterDeps,
  ) {
    this.name = config.name;
    // The gateway's shared upstream client (pools, same-origin redirects, size caps); an own one when
    // the adapter is built on its own (check-config, unit tests).
    const shared = deps.upstream ?? new UpstreamClient({ agent: config.name, kind: 'a2a' });
    this.connection = new A2aConnection(config.name, config, shared);
  }

  /** From the upstream's card: description, skills (as sites-free text), streaming. */
  async describe(signal?: AbortSignal): Promise<AgentDescription> {
    const card = await this.connection.agentCard(signal ? { signal } : {});
    const skills = card.skills.map((s) => s.name || s.id).filter(Boolean);
    const about = this.config.description ?? (card.description || `The A2A agent ${card.name}`);
    return {
      description: skills.length > 0 && !this.config.description ? `${about} (skills: ${skills.join(', ')})` : about,
      capabilities: { streaming: this.streams(card.capabilities?.streaming) },
    };
  }

  /** A2A 1.0 §3.1.1/§3.1.2: the ask as a message, streamed when the card allows; the reply as events. */
  async *ask(request: AskRequest, ctx: CallContext): AsyncGenerator<AgentEvent> {
    const scope = this.scope(ctx);
    const { client, card } = await this.call(() => this.connection.client(scope));
    const params = this.messageFor(request, ctx);
    yield { type: 'start' };
    if (this.streams(card.capabilities?.streaming)) {
      yield* this.streamed(client.sendMessageStream(params, { signal: ctx.signal }), ctx);
      return;
    }
    // Non-blocking: the task id comes back at once, so a cancel can reach the upstream task.
    const reply = await this.call(() => client.sendMessage({ ...params, configuration: { ...params.configuration!, returnImmediately: true } }, { signal: ctx.signal }));
    if (!('status' in reply) || !isWorking(reply)) {
      yield* this.finish(reply, ctx);
      return;
    }
    yield* this.follow(client, reply, ctx);
  }

  /** Follows a working task with GetTask (backing off to 2 s) until it ends; an abort cancels it upstream. */
  private async *follow(client: Client, first: Task, ctx: CallContext): AsyncGenerator<AgentEvent> {
    const stop = this.cancelOnAbort(first.id, ctx);
    try {
      let task = first;
      let pause = 100;
      let last: string | undefined;
      while (isWorking(task)) {
        const message = statusText(task.status);
        if (message && message !== last) yield { type: 'progress', message: (last = message) };
        await sleep(pause, ctx.signal);
        if (ctx.signal.aborted) throw ctx.signal.reason ?? new GatewayError('CANCELLED', 'The call was cancelled');
        pause = Math.min(pause * 2, 2_000);
        task = await this.call(() => client.getTask({ id: first.id, tenant: '' }, { signal: ctx.signal }));
      }
      yield* this.finish(task, ctx);
    } finally {
      stop();
    }
  }

  /** While a task runs, an aborted call (cancel, timeout, client gone) sends CancelTask upstream (best effort). */
  private cancelOnAbort(taskId: string, ctx: CallContext): () => void {
    const onAbort = () => {
      // A client of its own: the call's client fetches with the very signal that just aborted.
      const { signal: _aborted, ...scope } = this.scope(ctx);
      void this.connection
        .client({ ...scope, signal: AbortSignal.timeout(5_000) })
        .then(({ client }) => client.cancelTask({ id: taskId, tenant: '', metadata: undefined }))
        .catch(() => undefined);
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    return () => ctx.signal.removeEventListener('abort', onAbort);
  }

  /** NLWeb 4.2 over A2A: checkin is GetTask (a promise again while it works), cancel is CancelTask. */
  async *await(token: string, action: 'checkin' | 'cancel', ctx: CallContext): AsyncGenerator<AgentEvent> {
    const taskId = unpackToken(token);
    const { client } = await this.call(() => this.connection.client(this.scope(ctx)));
    if (action === 'cancel') {
      await this.call(() => client.cancelTask({ id: taskId, tenant: '', metadata: undefined }, { signal: ctx.signal })).catch(() => undefined);
      yield { type: 'error', code: 'CANCELLED', message: 'The call was cancelled' };
      return;
    }
    const task = await this.call(() => client.getTask({ id: taskId, tenant: '' }, { signal: ctx.signal }));
    yield* this.finish(task, ctx);
  }

  private streams(cardSays: boolean | undefined): boolean {
    return cardSays === true && this.config.streaming !== false;
  }

  private scope(ctx: CallContext): CallScope {
    return { signal: ctx.signal, requestId: ctx.requestId, ...(ctx.credentials?.authorization ? { authorization: ctx.credentials.authorization } : {}) };
  }

  /** The message for an ask: the question as text, filters as one data part, in the upstream context. */
  private messageFor(request: AskRequest, ctx: CallContext): SendMessageRequest {
    const { text, ...filters } = request.query;
    const parts: Part[] = [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }];
    if (Object.keys(filters).length > 0) parts.push({ content: { $case: 'data', value: filters }, metadata: undefined, filename: '', mediaType: 'application/json' });
    const attrs = ctx.conversation?.attrs ?? {};
    const message: Message = {
      messageId: randomUUID(),
      contextId: attrs[CONTEXT_ATTR] ?? '',
      taskId: attrs[INPUT_TASK_ATTR] ?? '',
      role: Role.ROLE_USER,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    return { tenant: '', message, configuration: { acceptedOutputModes: ['text/plain', 'application/json'], taskPushNotificationConfig: undefined, returnImmediately: false }, metadata: undefined };
  }

  /** §3.1.2 stream events as canonical events; a stream that ends while the task works becomes a promise. */
  private async *streamed(events: AsyncGenerator<StreamResponse>, ctx: CallContext): AsyncGenerator<AgentEvent> {
    let task: Task | undefined;
    let stop = () => {};
    const text: string[] = [];
    let lastProgress: string | undefined;
    const iterator = events[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await this.call(() => iterator.next());
        if (next.done) break;
        const p = next.value.payload;
        if (p?.$case === 'message') {
          await this.remember(p.value.contextId, undefined, ctx);
          yield* replyEvents(p.value);
          return;
        }
        if (p?.$case === 'task') {
          if (!task) stop = this.cancelOnAbort(p.value.id, ctx);
          task = p.value;
        }
        if (p?.$case === 'artifactUpdate') {
          const parts = partsToItems(p.value.artifact?.parts ?? []);
          text.push(...parts.text);
          for (const item of parts.items) yield { type: 'result', item };
        }
        if (p?.$case === 'statusUpdate' && task) task = { ...task, status: p.value.status };
        if (task && isWorking(task)) {
          const message = statusText(task.status);
          if (message && message !== lastProgress) yield { type: 'progress', message: (lastProgress = message) };
        }
      }
    } finally {
      stop();
    }
    if (!task) throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.name}" ended its stream without a task or message`);
    await this.remember(task.contextId, task, ctx);
    for (const item of summaryItem(text)) yield { type: 'result', item };
    if (isWorking(task)) {
      yield { type: 'promise', promise: { token: packToken(task.id), message: statusText(task.status) ?? 'The agent is working on it' } };
      return;
    }
    const end = terminalEvent(task.status);
    if (end) yield end;
  }

  /** A reply to SendMessage or GetTask: a promise while the task works, else its items and end. */
  private async *finish(reply: Task | Message, ctx: CallContext): AsyncGenerator<AgentEvent> {
    await this.remember(reply.contextId, 'status' in reply ? reply : undefined, ctx);
    if ('status' in reply && isWorking(reply)) {
      yield { type: 'promise', promise: { token: packToken(reply.id), message: statusText(reply.status) ?? 'The agent is working on it' } };
      return;
    }
    yield* replyEvents(reply);
  }

  /** Keeps the upstream contextId (and the task waiting for input) with the gateway conversation. */
  private async remember(contextId: string, task: Task | undefined, ctx: CallContext): Promise<void> {
    if (!ctx.setConversationAttr) return;
    if (contextId && contextId !== ctx.conversation?.attrs[CONTEXT_ATTR]) await ctx.setConversationAttr(CONTEXT_ATTR, contextId);
    const waiting = task && terminalEvent(task.status)?.type === 'elicitation' ? task.id : '';
    if (waiting !== (ctx.conversation?.attrs[INPUT_TASK_ATTR] ?? '')) await ctx.setConversationAttr(INPUT_TASK_ATTR, waiting);
  }

  /** Runs an SDK call: gateway errors pass, A2A errors and anything else become UPSTREAM_ERROR (no upstream text). */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      const reason = typeof (err as { reason?: unknown })?.reason === 'string' ? (err as { reason: string }).reason : undefined;
      if (reason === 'TASK_NOT_FOUND') throw new GatewayError('PROMISE_NOT_FOUND', `Agent "${this.name}" no longer knows the task`, { cause: err });
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.name}" failed${reason ? ` (${reason})` : ''}`, { cause: err });
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
