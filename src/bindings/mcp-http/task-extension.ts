import { z } from 'zod';
import { ProtocolError, inputRequired, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { ClientChannel } from '../../core/agent.ts';
import type { Gateway } from '../../core/gateway-types.ts';
import { ownerTag } from '../../core/ownership.ts';
import { toolResultOf } from '../../core/tool-promises.ts';
import { isPromise, type CanonicalResponse } from '../../protocol/nlweb/index.ts';
import { startAskTask, type AskToolContext } from './ask.ts';
import { callOptions, clientCapabilities, roundsOf, type McpCall } from './call.ts';
import { protocolError, renderNlwebResult, renderToolResult } from './render.ts';
import { MAX_UPDATE_ATTEMPTS } from '../../store/update-record.ts';
import { DEFAULT_TTL_MS, TASK_POLL_INTERVAL_MS, TaskIdParamsSchema, TaskRecordBaseSchema, TerminalSchema, readStoredTaskRecord, replaceTaskRecord, stateOf, writeTaskRecord } from './tasks.ts';

/** The extension's identifier (SEP-2663), under `capabilities.extensions` on both sides. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Store namespace of the tasks created for 2026-07-28 clients (apart from the 2025 ones: other wire). */
export const TASK_EXTENSION_NAMESPACE = 'mcp-task-ext';
/**
 * How long a tool that requires a task is given to ask for input before its task exists: an
 * upstream that asks at once gets its `input_required` round to the client first (SEP-2663 "MRTR →
 * Tasks composition"); anything slower is a task from then on.
 */
const FIRST_ROUND_WAIT_MS = 2000;

const JsonObject = z.record(z.string(), z.unknown());

/**
 * A 2026 task beside its promise: which promise it waits on now (a tool task that asked for input
 * runs each later round as a new promise), how to call that next round, the input it waits for, and
 * — once seen terminal — its end with the result or error, so `tasks/get` needs the promise no more.
 */
const ExtensionTaskSchema = TaskRecordBaseSchema.extend({
  kind: z.enum(['ask', 'tool']),
  promise: z.string(),
  call: z.object({ agent: z.string(), tool: z.string(), args: JsonObject, capabilities: JsonObject }).optional(),
  pending: z.object({ inputRequests: JsonObject, requestState: z.string().optional(), answers: JsonObject }).optional(),
  final: z
    .object({
      status: TerminalSchema,
      statusMessage: z.string().optional(),
      at: z.string(),
      result: JsonObject.optional(),
      error: z.object({ code: z.number(), message: z.string() }).optional(),
    })
    .optional(),
});
type ExtensionTask = z.infer<typeof ExtensionTaskSchema>;
type Final = NonNullable<ExtensionTask['final']>;
/** A task record as read, with the stored text a compare-and-set of it compares against. */
interface StoredTask {
  record: ExtensionTask;
  raw: string;
}

/** How often a call reads the task again after another call changed it first (the store's bound for every update). */
const MAX_ATTEMPTS = MAX_UPDATE_ATTEMPTS;

/** `tasks/update` params; the SDK lifts a 2026 request's `inputResponses` into `ctx.mcpReq`, so it may be absent here. */
const UpdateParamsSchema = TaskIdParamsSchema.extend({ inputResponses: JsonObject.optional() });

/** Whether a 2026-07-28 request declared the extension in its per-request capabilities (SEP-2575, SEP-2663). */
export function declaresTasks(call: McpCall, ctx: ServerContext): boolean {
  if (call.era !== 'modern') return false;
  const extensions = (clientCapabilities(call, ctx) as { extensions?: unknown }).extensions;
  return extensions !== null && typeof extensions === 'object' && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** -32021 naming the extension (SEP-2575 "Missing Required Client Capability"). */
export function missingTasksExtension(): ProtocolError {
  return new ProtocolError(-32021, `Missing required client capability: the ${TASKS_EXTENSION} extension`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/**
 * The MCP tasks extension (SEP-2663) for 2026-07-28 clients, over the gateway's promises: a task is
 * a promise (its id is the promise token: unguessable, in the shared store, so any replica answers),
 * owned by its creator and gone when its promise lifetime ends. Tasks for `ask` and for agent tools
 * that support them; an upstream's `input_required` round inside a task parks it in `input_required`
 * until `tasks/update` has every answer, then the next round runs as a new promise.
 */
export class McpTaskExtension {
  constructor(
    private readonly gateway: Gateway,
    private readonly ttlMs: number = DEFAULT_TTL_MS,
  ) {}

  /** `tools/call` of `ask` from a client with the extension: a CreateTaskResult at once. */
  async createAsk(args: unknown, t: AskToolContext): Promise<Record<string, unknown>> {
    const response = await startAskTask(args, t);
    return this.create(response.promise.token, { kind: 'ask', promise: response.promise.token }, t.call, stateOf(response));
  }

  /**
   * `tools/call` of an agent tool that supports tasks: -32021 for a `required` one when the client
   * lacks the extension, undefined (a plain call) for an `optional` one then; else a task — after
   * letting a `required` tool ask for its input first (FIRST_ROUND_WAIT_MS).
   */
  async forTool(route: { agent: string; tool: string; taskSupport?: string }, args: Record<string, unknown>, t: AskToolContext): Promise<Record<string, unknown> | undefined> {
    if (route.taskSupport !== 'optional' && route.taskSupport !== 'required') return undefined;
    if (!declaresTasks(t.call, t.ctx)) {
      if (route.taskSupport === 'required') throw missingTasksExtension();
      return undefined;
    }
    const capabilities = clientCapabilities(t.call, t.ctx) as Record<string, unknown>;
    const info = await this.gateway.callToolAsPromise(route.agent, route.tool, args, { ...callOptions(t.call), client: roundsOf(t.call, t.ctx) ?? {} }).catch((err: unknown) => {
      throw protocolError(err);
    });
    const record: Omit<ExtensionTask, 'createdAt' | 'ttl' | 'owner'> = { kind: 'tool', promise: info.token, call: { agent: route.agent, tool: route.tool, args, capabilities } };
    if (route.taskSupport === 'required') {
      const first = await this.gateway.await({ promise_token: info.token, action: 'checkin', wait_ms: FIRST_ROUND_WAIT_MS }, callOptions(t.call, t.ctx.mcpReq.signal));
      const asked = toolResultOf(first)?.inputRequired;
      if (asked) return inputRequired(asked as never) as unknown as Record<string, unknown>;
      if (!isPromise(first)) {
        const now = { ...record, createdAt: new Date().toISOString(), ttl: this.ttlMs, owner: ownerTag(t.call.principal) };
        return this.create(info.token, { ...record, final: endOf(now, first) }, t.call, { status: 'completed' });
      }
    }
    return this.create(info.token, record, t.call, { status: 'working' });
  }

  private async create(taskId: string, fields: Omit<ExtensionTask, 'createdAt' | 'ttl' | 'owner'>, call: McpCall, state: { status: string }): Promise<Record<string, unknown>> {
    const record: ExtensionTask = { createdAt: new Date().toISOString(), ttl: this.ttlMs, owner: ownerTag(call.principal), ...fields };
    // Durable before the client hears of it: a tasks/get right after this answer finds it.
    await writeTaskRecord(this.gateway.store, TASK_EXTENSION_NAMESPACE, taskId, record);
    const status = record.final?.status ?? state.status;
    return { resultType: 'task', ...envelope(taskId, record, status, record.final?.at) };
  }

  /**
   * `tasks/get`: the DetailedTask — its result or error inlined once terminal, its open input
   * requests while `input_required`. What the promise answered is stored by compare-and-set on the
   * record read: when another call changed the task first (a cancel, another `tasks/get` that saw the
   * end), the task is answered as it now stands.
   */
  async get(taskId: string, call: McpCall, attempts = MAX_ATTEMPTS): Promise<Record<string, unknown>> {
    const stored = await this.read(taskId, call);
    const { record } = stored;
    if (record.final) return detailed(taskId, record, record.final);
    if (record.pending) {
      const open = Object.fromEntries(Object.entries(record.pending.inputRequests).filter(([k]) => !Object.hasOwn(record.pending!.answers, k)));
      return { ...envelope(taskId, record, 'input_required'), inputRequests: open };
    }
    const response = await this.gateway.await({ promise_token: record.promise, action: 'checkin' }, callOptions(call));
    if (isPromise(response)) {
      const { statusMessage } = stateOf(response);
      return { ...envelope(taskId, record, 'working'), ...(statusMessage ? { statusMessage } : {}) };
    }
    const asked = record.kind === 'tool' ? toolResultOf(response)?.inputRequired : undefined;
    if (asked) {
      const { requestState } = asked as { requestState?: string };
      const pending = { inputRequests: (asked.inputRequests ?? {}) as Record<string, unknown>, ...(requestState !== undefined ? { requestState } : {}), answers: {} };
      if (!(await this.replace(taskId, stored, { ...record, pending })) && attempts > 1) return this.get(taskId, call, attempts - 1);
      return { ...envelope(taskId, record, 'input_required'), inputRequests: pending.inputRequests };
    }
    const final = endOf(record, response);
    if (!(await this.replace(taskId, stored, { ...record, final })) && attempts > 1) return this.get(taskId, call, attempts - 1);
    return detailed(taskId, record, final);
  }

  /**
   * `tasks/update`: answers to the open input requests (unknown or already answered keys are
   * ignored); once every one is answered the tool's next round runs, with the answers and the
   * upstream's requestState. An empty ack either way: the new state shows on the next `tasks/get`.
   * Answers join the stored ones by compare-and-set, so updates at once keep each other's; a round
   * whose task was cancelled, or whose round another update started, while it began is stopped.
   */
  async update(taskId: string, inputResponses: Record<string, unknown>, call: McpCall, attempts = MAX_ATTEMPTS): Promise<Record<string, unknown>> {
    const stored = await this.read(taskId, call);
    const { record } = stored;
    const { pending } = record;
    if (!pending || record.final || !record.call) return {};
    const answers = { ...pending.answers };
    for (const [key, value] of Object.entries(inputResponses)) if (Object.hasOwn(pending.inputRequests, key)) answers[key] = value;
    if (!Object.keys(pending.inputRequests).every((k) => Object.hasOwn(answers, k))) {
      if (!(await this.replace(taskId, stored, { ...record, pending: { ...pending, answers } })) && attempts > 1) return this.update(taskId, inputResponses, call, attempts - 1);
      return {};
    }
    const { agent, tool, args, capabilities } = record.call;
    const rounds: ClientChannel['rounds'] = { capabilities, inputResponses: answers, ...(pending.requestState !== undefined ? { requestState: pending.requestState } : {}) };
    const next = await this.gateway.callToolAsPromise(agent, tool, args, { ...callOptions(call), client: { rounds } });
    const { pending: _answered, ...rest } = record;
    if (await this.replace(taskId, stored, { ...rest, promise: next.token })) return {};
    // The task changed while this round began: that stands (a cancel; another update's round), so this round stops.
    await this.gateway.await({ promise_token: next.token, action: 'cancel' }, callOptions(call)).catch(() => undefined);
    return attempts > 1 ? this.update(taskId, inputResponses, call, attempts - 1) : {};
  }

  /**
   * `tasks/cancel`: cancels the promise wherever it runs; a task already ended gets the same empty
   * ack (idempotent). The end is stored by compare-and-set: when the task changed meanwhile (a next
   * round began, an end was seen), the cancel applies to the task as it now stands.
   */
  async cancel(taskId: string, call: McpCall, attempts = MAX_ATTEMPTS): Promise<Record<string, unknown>> {
    const stored = await this.read(taskId, call);
    const { record } = stored;
    if (record.final) return {};
    let final: Final = { status: 'cancelled', at: new Date().toISOString() };
    if (!record.pending) {
      const response = await this.gateway.await({ promise_token: record.promise, action: 'cancel' }, callOptions(call));
      // A cancel that lost the race to the answer: the task ended with that answer.
      if (stateOf(response).status !== 'cancelled') final = endOf(record, response);
    }
    if (!(await this.replace(taskId, stored, { ...record, final })) && attempts > 1) return this.cancel(taskId, call, attempts - 1);
    return {};
  }

  private read(taskId: string, call: McpCall): Promise<StoredTask> {
    return readStoredTaskRecord(this.gateway.store, TASK_EXTENSION_NAMESPACE, taskId, ExtensionTaskSchema, call.principal);
  }

  /** Writes `next` over the record read as `from` only while it still is that; false when another call changed it first or it expired. */
  private replace(taskId: string, from: StoredTask, next: ExtensionTask): Promise<boolean> {
    return replaceTaskRecord(this.gateway.store, TASK_EXTENSION_NAMESPACE, taskId, from.raw, next);
  }
}

/**
 * How a settled promise ends its task (SEP-2663 error semantics): a tool that ran — an `ask` answer
 * or failure, an agent tool's result even with `isError` — is `completed` with its result; a call
 * that could not run is `failed` with a JSON-RPC error; a cancel is `cancelled`.
 */
function endOf(record: Pick<ExtensionTask, 'kind'>, response: CanonicalResponse): Final {
  const at = new Date().toISOString();
  const state = stateOf(response);
  if (state.status === 'cancelled') return { status: 'cancelled', at };
  if (record.kind === 'ask') return { status: 'completed', at, result: renderNlwebResult(response) as Record<string, unknown> };
  const tool = toolResultOf(response);
  if (tool) return { status: 'completed', at, result: renderToolResult(tool) as Record<string, unknown> };
  return { status: 'failed', at, error: { code: -32603, message: state.statusMessage ?? 'The tool call failed' } };
}

/** The Task fields every task answer carries (SEP-2663 wire names: `ttlMs`, `pollIntervalMs`). */
function envelope(taskId: string, record: Pick<ExtensionTask, 'createdAt' | 'ttl'>, status: string, at?: string): Record<string, unknown> {
  return { taskId, status, createdAt: record.createdAt, lastUpdatedAt: at ?? record.createdAt, ttlMs: record.ttl, pollIntervalMs: TASK_POLL_INTERVAL_MS };
}

function detailed(taskId: string, record: ExtensionTask, final: Final): Record<string, unknown> {
  return {
    ...envelope(taskId, record, final.status, final.at),
    ...(final.statusMessage ? { statusMessage: final.statusMessage } : {}),
    ...(final.result ? { result: final.result } : {}),
    ...(final.error ? { error: final.error } : {}),
  };
}

/**
 * Registers `tasks/get`, `tasks/update` and `tasks/cancel` on a 2026-07-28 server instance: each
 * answers -32021 unless the request declared the extension (SEP-2663 "gating"). `tasks/result` and
 * `tasks/list` stay unregistered (removed in the extension: -32601).
 */
export function registerTaskExtension(server: Server, tasks: McpTaskExtension, call: McpCall): void {
  const gate = <T>(ctx: ServerContext, run: () => Promise<T>): Promise<T> => {
    if (!declaresTasks(call, ctx)) return Promise.reject(missingTasksExtension());
    return run().catch((err: unknown) => {
      throw protocolError(err);
    });
  };
  server.setRequestHandler('tasks/get', { params: TaskIdParamsSchema }, (p, ctx) => gate(ctx, () => tasks.get(p.taskId, call)) as never);
  server.setRequestHandler('tasks/update', { params: UpdateParamsSchema }, (p, ctx) =>
    gate(ctx, () => tasks.update(p.taskId, p.inputResponses ?? (ctx.mcpReq.inputResponses as Record<string, unknown> | undefined) ?? {}, call)) as never,
  );
  server.setRequestHandler('tasks/cancel', { params: TaskIdParamsSchema }, (p, ctx) => gate(ctx, () => tasks.cancel(p.taskId, call)) as never);
}

/** The extension under `capabilities.extensions` for 2026-07-28 (never the 2025 `tasks` slot there). */
export function tasksExtensionCapability(call: McpCall): { extensions?: Record<string, Record<string, never>> } {
  return call.era === 'modern' ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
}
