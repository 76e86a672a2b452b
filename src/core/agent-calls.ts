import type { Store } from '../store/store.ts';
import type { CallContext } from './agent.ts';
import type { AgentEntry } from './agents.ts';
import { admit } from './admission.ts';
import { callContext, type CallHandle } from './call-context.ts';
import { CallSlots, type CallSlotLimits, type FreeSlot } from './call-slots.ts';
import { collectRun, type Collected } from './collect.ts';
import { Conversations, type Turn } from './conversations.ts';
import { GatewayError, toGatewayError } from '../base/errors.ts';
import type { AgentEvent } from './events.ts';
import { followUpstreamPromises } from './follow.ts';
import type { AskOptions, CallOptions } from './gateway-types.ts';
import type { Logger } from '../base/logger.ts';
import type { LocalRun } from './promise-contract.ts';
import { withSessionContext } from './responses.ts';
import { normalizeEvents } from './run.ts';
import { retryStoreWrite } from './store-retry.ts';

export interface AgentCallsOptions {
  store: Store;
  log: Logger;
  conversations: Conversations;
  /** An agent's call timeout when its config sets none (`defaults.timeoutMs`). */
  timeoutMs: number;
  /** How long a detached call keeps retrying its conversation turn's write (`defaults.promiseTtlMs`). */
  promiseTtlMs: number;
  /** `limits.maxCallsPerPrincipal` and `limits.maxCallsInFlight`; absent: calls are not counted (embedders, older tests). */
  callSlots?: CallSlotLimits;
}

/** A call started in the background: a promise's local run, which the caller may detach from its request. */
export type BackgroundRun = LocalRun & { detach(): void };

/**
 * How the core runs one agent call (design.md "The core"): admission and the caller's slot, the
 * call's context (timeout, the client's signal), its events collected or streamed, and the
 * conversation turn recorded when it ends. The gateway decides what to call; this runs it.
 */
export class AgentCalls {
  private readonly slots: CallSlots | undefined;

  constructor(private readonly opts: AgentCallsOptions) {
    if (opts.callSlots) this.slots = new CallSlots(opts.callSlots);
  }

  /** Admission (admission.ts) and one of the caller's slots (call-slots.ts), to free when the call ends. */
  admit(entry: AgentEntry, opts: CallOptions): Promise<FreeSlot> {
    return admit(entry, opts, this.opts.store, this.slots);
  }

  /** A CallContext with its own abort controller (call-context.ts); `slot` is freed when it ends. */
  context(entry: AgentEntry, opts: CallOptions, turn?: Turn, slot?: FreeSlot): CallHandle {
    return callContext(entry, opts, { log: this.opts.log, timeoutMs: this.opts.timeoutMs, conversations: this.opts.conversations }, turn, slot);
  }

  /** Runs one request/response call in a fresh CallContext; an abort (timeout, cancel) is reported as its reason. */
  async withContext<T>(entry: AgentEntry, opts: CallOptions, slot: FreeSlot, call: (ctx: CallContext) => Promise<T>): Promise<T> {
    const { ctx, release } = this.context(entry, opts, undefined, slot);
    try {
      return await call(ctx);
    } catch (err) {
      const reason = ctx.signal.aborted && ctx.signal.reason instanceof GatewayError ? ctx.signal.reason : toGatewayError(err);
      if (reason.code === 'INTERNAL_ERROR') ctx.log.error({ err: String(err), stack: (err as Error | undefined)?.stack }, 'agent call failed: internal error');
      throw reason;
    } finally {
      release();
    }
  }

  /** NLWeb 6: the call's normalised events, upstream promises followed; the turn is recorded before `complete` goes out. */
  stream(entry: AgentEntry, turn: Turn, opts: CallOptions, slot: FreeSlot): AsyncGenerator<AgentEvent> {
    const { ctx, release } = this.context(entry, opts, turn, slot);
    const normalized = normalizeEvents(() => entry.agent.ask(turn.request, ctx), ctx.signal, ctx.log);
    return this.recordingTurn(followUpstreamPromises(entry.agent, ctx, normalized), turn, entry.config.name, release);
  }

  /** Starts an agent call in the background, collecting its events; the turn is recorded when it ends. */
  startRun(entry: AgentEntry, turn: Turn, opts: AskOptions, slot?: FreeSlot): BackgroundRun {
    const { ctx, controller, detach, release } = this.context(entry, opts, turn, slot);
    const { conversations, log } = this.opts;
    let detached = false;
    let progressCb: ((p: { progress?: number; message?: string }) => void) | undefined;
    const done = collectRun(() => entry.agent.ask(turn.request, ctx), ctx.signal, ctx.log, (e) => {
      if (e.type === 'progress') progressCb?.({ ...(e.progress !== undefined ? { progress: e.progress } : {}), ...(e.message ? { message: e.message } : {}) });
    })
      .then(async (c: Collected) => {
        // The answer keeps its conversation wherever it is read (here, or later through /await).
        const response = withSessionContext(c.response, Conversations.sessionContext(turn.conversationId));
        // Answered at once, a store outage is the client's 503 to retry, and the binding's record of
        // the answer goes in the same write. Once the call is a promise, an outage (failover) delays
        // the turn's record and must never replace the answer.
        if (!detached) await conversations.finish(turn, entry.config.name, c.upstreamSession, c.upstreamPromise ? undefined : opts.recordWithAnswer?.(response));
        else await retryStoreWrite(() => conversations.finish(turn, entry.config.name, c.upstreamSession), { until: Date.now() + this.opts.promiseTtlMs, log, what: 'a conversation turn' }).catch((err: unknown) => {
          log.warn({ err: String(err) }, 'could not record the conversation turn');
        });
        return { ...c, response };
      })
      .finally(release);
    return {
      controller,
      done,
      detach: () => {
        detached = true;
        detach();
      },
      onProgress: (cb) => (progressCb = cb),
    };
  }

  /** Forwards a check-in or cancel of an upstream promise (NLWeb 4.2) to the agent that issued it. */
  async awaitUpstream(entry: AgentEntry, token: string, action: 'checkin' | 'cancel'): Promise<Collected> {
    if (!entry.agent.await) throw new GatewayError('INTERNAL_ERROR', 'The agent cannot continue this promise');
    const { ctx, release } = this.context(entry, {});
    try {
      return await collectRun(() => entry.agent.await!(token, action, ctx), ctx.signal, ctx.log);
    } finally {
      release();
    }
  }

  /** Passes a stream through, recording the conversation turn before `complete` goes out. */
  private async *recordingTurn(events: AsyncIterable<AgentEvent>, turn: Turn, agent: string, release: () => void): AsyncGenerator<AgentEvent> {
    let upstreamSession: Record<string, unknown> | undefined;
    try {
      for await (const e of events) {
        const sc = e.type === 'start' || e.type === 'complete' ? e.meta?.session_context : undefined;
        if (sc && typeof sc === 'object') upstreamSession = sc as Record<string, unknown>;
        if (e.type === 'complete') {
          // The answer is already with the client: a store failure here costs the turn, not the answer.
          await this.opts.conversations.finish(turn, agent, upstreamSession).catch((err: unknown) => {
            this.opts.log.warn({ err: String(err) }, 'could not record the conversation turn');
          });
        }
        yield e;
      }
    } finally {
      release();
    }
  }
}
