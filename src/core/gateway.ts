import type { AskRequest, AwaitRequest, CanonicalResponse, PromiseInfo } from '../protocol/nlweb/index.ts';
import type { PromiseRecord, Store } from '../store/store.ts';
import { loadAdapters, type AdapterFactory, type AgentDescription, type ClientSession, type CommonAgentConfig, type ToolResult } from './agent.ts';
import { AgentCalls } from './agent-calls.ts';
import { CallSlots, type FreeSlot } from './call-slots.ts';
import { knownTools, publishTools } from './published-tools.ts';
import { AgentRegistry, type AgentEntry } from './agents.ts';
import type { Collected } from './collect.ts';
import { Conversations, type Turn } from './conversations.ts';
import { GatewayError } from '../base/errors.ts';
import type { AgentInfo, AskOptions, AskStream, CallOptions, Gateway, PublishedTool, ReadAhead } from './gateway-types.ts';
import { newToken } from './ids.ts';
import type { Logger } from '../base/logger.ts';
import type { Principal } from './principal.ts';
import type { UpstreamLimits } from './upstream/index.ts';
import { checkPreferences } from './negotiate.ts';
import type { LocalRun } from './promise-contract.ts';
import { PromiseService } from './promises.ts';
import { toolRun } from './tool-promises.ts';
import { mayRunAgain, storedToolCall, toolCallOf } from './reruns.ts';
import { promiseResponse, withSessionContext } from './responses.ts';
import { raceTimeout, TIMED_OUT } from './race.ts';
import { checkQueryLength, type CoreLimits } from './limits.ts';
import { mayAwait, ownerTag } from './ownership.ts';

/** Limits and lifetimes the core needs (the config's `defaults` section). */
export interface CoreDefaults {
  promiseAfterMs: number;
  timeoutMs: number;
  promiseTtlMs: number;
  promiseReadGraceMs: number;
  leaseMs: number;
  conversationIdleTtlMs: number;
  maxPrev: number;
  awaitMaxWaitMs: number;
}

export interface GatewayOptions {
  agents: ReadonlyArray<CommonAgentConfig & Record<string, unknown>>;
  adapters: readonly AdapterFactory<any>[];
  defaults: CoreDefaults;
  /** Absent: no query-length cap and no character caps on stored `prev` (embedders, older tests). */
  limits?: CoreLimits;
  store: Store;
  log: Logger;
  baseDir: string;
  defaultAgent?: string;
  replicaId?: string;
  /** Caps on upstream replies (config `limits`); the schema's defaults when absent. */
  upstreamLimits?: UpstreamLimits;
}


/** Builds the protocol core and starts its background work (cancel listener, lease sweeper). */
export async function createGateway(opts: GatewayOptions): Promise<Gateway> {
  await loadAdapters(opts.adapters, opts.agents);
  const core = new GatewayCore(opts);
  await core.start();
  return core;
}

/** The protocol core: routing, streams, promises, conversations (design.md "The core"). */
class GatewayCore implements Gateway {
  readonly store: Store;
  readonly log: Logger;
  readonly replicaId: string;
  private readonly registry: AgentRegistry;
  private readonly conversations: Conversations;
  private readonly promises: PromiseService;
  private readonly defaults: CoreDefaults;
  private readonly limits: CoreLimits | undefined;
  private readonly calls: AgentCalls;

  constructor(opts: GatewayOptions) {
    this.store = opts.store;
    this.log = opts.log;
    this.defaults = opts.defaults;
    this.limits = opts.limits;
    this.replicaId = opts.replicaId ?? newToken('replica');
    this.registry = new AgentRegistry(opts.agents, opts.adapters, { log: opts.log, baseDir: opts.baseDir, ...(opts.upstreamLimits ? { upstreamLimits: opts.upstreamLimits } : {}) }, opts.defaultAgent);
    this.conversations = new Conversations(opts.store, {
      idleTtlMs: opts.defaults.conversationIdleTtlMs,
      maxPrev: opts.defaults.maxPrev,
      ...(opts.limits ? { maxPrevItemChars: opts.limits.maxPrevItemChars, maxPrevTotalChars: opts.limits.maxPrevTotalChars } : {}),
    });
    const d = opts.defaults;
    this.calls = new AgentCalls({
      store: opts.store,
      log: opts.log,
      conversations: this.conversations,
      timeoutMs: d.timeoutMs,
      promiseTtlMs: d.promiseTtlMs,
      ...(opts.limits?.maxCallsPerPrincipal !== undefined ? { callSlots: { perPrincipal: opts.limits.maxCallsPerPrincipal, perClass: opts.limits.maxCallsInFlight ?? Infinity } } : {}),
    });
    this.promises = new PromiseService(
      opts.store,
      { replicaId: this.replicaId, ttlMs: d.promiseTtlMs, readGraceMs: d.promiseReadGraceMs, leaseMs: d.leaseMs, awaitMaxWaitMs: d.awaitMaxWaitMs },
      {
        forwardCheckin: (r) => this.forwardAwait(r, 'checkin'),
        forwardCancel: async (r) => void (await this.forwardAwait(r, 'cancel')),
        rerun: (r) => this.rerun(r),
      },
      opts.log,
    );
  }

  async start(): Promise<void> {
    await this.promises.start();
    void this.registry.warm(this.log);
  }

  listAgents(): AgentInfo[] {
    return this.registry.list();
  }

  describeAgent(name: string): Promise<AgentDescription> {
    return this.registry.describe(name);
  }

  resolveAgent(request: AskRequest | undefined, agent?: string): string {
    return this.registry.resolve(request, agent);
  }

  /** NLWeb 3 + 4.1.2: answers within `promiseAfterMs`, else a promise while the call goes on. */
  async ask(request: AskRequest, opts: AskOptions = {}): Promise<CanonicalResponse> {
    const { entry, turn, slot } = await this.open(request, opts);
    const run = this.calls.startRun(entry, turn, opts, slot);
    const after = opts.promiseAfterMs ?? entry.config.promiseAfterMs ?? this.defaults.promiseAfterMs;
    // 0 means "always a promise" (an MCP task must have a handle even when the answer is instant).
    const first = opts.allowPromise === false ? await run.done : after === 0 ? TIMED_OUT : await raceTimeout(run.done, after);
    const sc = Conversations.sessionContext(turn.conversationId);
    if (first === TIMED_OUT) {
      run.detach();
      const info = await this.promises.adopt(entry.config.name, run, { request: turn.request, conversationId: turn.conversationId, principal: ownerTag(opts.principal) });
      return withSessionContext(promiseResponse(info), sc);
    }
    if (first.upstreamPromise) {
      const info = await this.promises.adoptUpstream(entry.config.name, first.upstreamPromise, ownerTag(opts.principal), turn.conversationId);
      return withSessionContext(promiseResponse(info), sc);
    }
    return first.response;
  }

  /** NLWeb 6: a live stream of normalised events; upstream promises are followed to the answer. */
  async askStream(request: AskRequest, opts: CallOptions = {}): Promise<AskStream> {
    const { entry, turn, slot } = await this.open(request, opts);
    return {
      agent: entry.config.name,
      conversationId: turn.conversationId,
      sessionContext: Conversations.sessionContext(turn.conversationId),
      events: this.calls.stream(entry, turn, opts, slot),
    };
  }

  /**
   * NLWeb 4.2: check in on (optionally long-polling) or cancel a promise, wherever it runs. Only the
   * principal that created it may; for anyone else the token is unknown (PROMISE_NOT_FOUND).
   */
  async await(request: AwaitRequest, opts: CallOptions = {}): Promise<CanonicalResponse> {
    const caller = { principal: ownerTag(opts.principal), allowed: (record: PromiseRecord) => mayAwait(this.agentRequiresAuth(record.agent), opts) };
    return request.action === 'cancel'
      ? this.promises.cancel(request.promise_token, caller)
      : this.promises.checkin(request.promise_token, request.wait_ms ?? 0, caller);
  }

  /** Whether `agent` (still configured) requires authentication: its promises then want it on /await too. */
  private agentRequiresAuth(agent: string): boolean {
    return this.registry.names().includes(agent) && this.registry.get(agent).config.requireAuth === true;
  }

  async listTools(agent?: string, session?: ClientSession): Promise<PublishedTool[]> {
    return publishTools(this.registry, agent, session);
  }

  knownTools(agent: string): readonly PublishedTool[] | undefined {
    return knownTools(this.registry, agent);
  }

  async callTool(agent: string, tool: string, args: Record<string, unknown>, opts: CallOptions = {}): Promise<ToolResult> {
    const entry = this.registry.get(agent);
    return this.runTool(entry, tool, args, opts, await this.calls.admit(entry, opts));
  }

  /** Calls a structured tool in the background as a gateway promise (NLWeb 4.1.2; MCP tasks extension). */
  async callToolAsPromise(agent: string, tool: string, args: Record<string, unknown>, opts: CallOptions = {}): Promise<PromiseInfo> {
    // The call outlives the request that started it: only a cancel of the promise aborts it.
    const { signal: _request, ...rest } = opts;
    const entry = this.registry.get(agent);
    // Admitted before the promise exists: a refusal (401, 403, 429) answers the request, not a failed task.
    const slot = await this.calls.admit(entry, rest);
    const run = toolRun((signal) => this.runTool(entry, tool, args, { ...rest, signal }, slot));
    // The call is kept (never credentials) so another replica can run it again if this one is lost (issue 24).
    const keep = entry.config.idempotent === false ? {} : { request: storedToolCall(tool, args) };
    return this.promises.adopt(agent, run, { principal: ownerTag(opts.principal), ...keep });
  }

  /** A client session ended: every agent that keeps state per session drops it (Agent.endSession). */
  async endSession(sessionId: string): Promise<void> {
    await Promise.all(
      this.registry.names().map((name) => this.registry.get(name).agent.endSession?.(sessionId).catch((err: unknown) => this.log.warn({ err: String(err), agent: name }, 'ending a session failed'))),
    );
  }

  /** Passes a request of the agent's own protocol through (Agent.forward, e.g. MCP resources/prompts). */
  async forward(agent: string, protocol: 'mcp', method: string, params: Record<string, unknown>, opts: CallOptions = {}): Promise<Record<string, unknown>> {
    const entry = this.registry.get(agent);
    const slot = await this.calls.admit(entry, opts);
    return this.calls.withContext(entry, opts, slot, async (ctx) => {
      const description = await this.registry.describe(agent);
      if (!entry.agent.forward || !description.forwards?.[protocol]?.includes(method)) {
        throw new GatewayError('TOOL_NOT_FOUND', `Agent "${agent}" does not serve ${method}`);
      }
      return entry.agent.forward(protocol, method, params, ctx);
    });
  }

  resolveConversation(kind: string, handle: string, owner?: Principal, fallback?: string): Promise<{ conversationId: string | null; readAhead?: ReadAhead }> {
    return this.conversations.resolveAlias(kind, handle, owner, fallback);
  }

  bindConversation(kind: string, handle: string, conversationId: string, owner?: Principal): Promise<void> {
    return this.conversations.bindAlias(kind, handle, conversationId, owner);
  }

  readRecordWithConversation(namespace: string, id: string, touchTtlMs: number, field: string, owner?: Principal): Promise<{ record: string | null; conversation?: ReadAhead }> {
    return this.conversations.readLinked(namespace, id, touchTtlMs, field, owner);
  }

  async drain(deadline: number): Promise<{ released: number }> {
    this.promises.drain();
    while (this.promises.runningCount > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.min(50, Math.max(1, deadline - Date.now()))));
    }
    return { released: this.promises.runningCount > 0 ? await this.promises.release() : 0 };
  }

  async close(): Promise<void> {
    await this.promises.close();
    await this.registry.close();
  }

  // ---- internals ----

  /** Runs an admitted structured tool call; TOOL_NOT_FOUND when the agent does not describe `tool`. */
  private runTool(entry: AgentEntry, tool: string, args: Record<string, unknown>, opts: CallOptions, slot: FreeSlot): Promise<ToolResult> {
    return this.calls.withContext(entry, opts, slot, async (ctx) => {
      const description = await this.registry.describe(entry.config.name);
      if (!entry.agent.callTool || !description.tools?.some((t) => t.name === tool)) {
        throw new GatewayError('TOOL_NOT_FOUND', `Agent "${entry.config.name}" has no tool "${tool}"`);
      }
      return entry.agent.callTool(tool, args, ctx);
    });
  }

  /** Routing, negotiation, authentication and the conversation, common to ask and askStream. */
  private async open(request: AskRequest, opts: CallOptions): Promise<{ entry: AgentEntry; turn: Turn; slot: FreeSlot }> {
    checkQueryLength(request, this.limits);
    const entry = this.registry.get(this.registry.resolve(request, opts.agent));
    checkPreferences(request, entry.description);
    const slot = await this.calls.admit(entry, opts);
    try {
      return { entry, turn: await this.conversations.begin(request, entry.config.name, opts.principal, opts.readAhead), slot };
    } catch (err) {
      slot();
      throw err;
    }
  }

  /** Runs a lost promise again on this replica when running it twice does no harm (core/reruns.ts). */
  private async rerun(record: PromiseRecord): Promise<LocalRun | null> {
    const entry = this.registry.names().includes(record.agent) ? this.registry.get(record.agent) : undefined;
    if (!entry || record.request === undefined) return null;
    if (!(await mayRunAgain(entry, record, () => this.registry.describe(record.agent)))) return null;
    const call = toolCallOf(record.request);
    if (call) {
      // Admitted when first called; its owner's principal is kept on the promise record.
      return entry.agent.callTool ? toolRun((signal) => this.runTool(entry, call.name, call.arguments, { signal }, CallSlots.uncounted)) : null;
    }
    // The turn stays in the conversation of the promise's owner, wherever it runs again.
    const turn = this.conversations.resume(record.request as AskRequest, record.conversationId, record.principal ?? ownerTag(undefined));
    const run = this.calls.startRun(entry, turn, {});
    // A re-run is a promise from the start: store outages delay it, never replace its answer.
    run.detach();
    return run;
  }

  /** Forwards a check-in or cancel of an upstream promise to the agent that issued it. */
  private async forwardAwait(record: PromiseRecord, action: 'checkin' | 'cancel'): Promise<Collected> {
    if (!record.upstreamToken) throw new GatewayError('INTERNAL_ERROR', 'The agent cannot continue this promise');
    return this.calls.awaitUpstream(this.registry.get(record.agent), record.upstreamToken, action);
  }
}
