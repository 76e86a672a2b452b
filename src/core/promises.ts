import type { CanonicalResponse, PromiseInfo } from '../protocol/nlweb/index.ts';
import type { PromiseRecord, Store } from '../store/store.ts';
import type { Collected } from './collect.ts';
import type { LocalRun, PromiseCaller, PromiseHooks, PromiseSettings } from './promise-contract.ts';
import { publishPromise } from './core-events.ts';
import { GatewayError, toGatewayError } from '../base/errors.ts';
import { newToken } from './ids.ts';
import type { Logger } from '../base/logger.ts';
import { unknownPromise } from './ownership.ts';
import { retryStoreWrite } from './store-retry.ts';
import { asPromise, present } from './promise-responses.ts';
import { failureFromError, failureResponse } from './responses.ts';

/** Lease value for promises no replica runs (upstream promises: check-ins are forwarded). */
const NO_LEASE = Number.MAX_SAFE_INTEGER;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sent on the cancel channel when a replica shutting down released its leases: every other replica
 * sweeps at once instead of at its next tick. Gateway tokens start with `prm_`, so it never names one.
 */
export const LEASES_RELEASED = '!leases-released';

/** Expired leases taken per sweep round. */
const SWEEP_BATCH = 20;

/** A call this replica runs for a promise: its abort, its lease renewal timer, its agent. */
interface Tracked {
  controller: AbortController;
  renew: NodeJS.Timeout;
  agent: string;
}

/**
 * Promises owned by the gateway (NLWeb 4.1.2, 4.2) over the shared store: any replica answers a
 * check-in or a cancel; the replica running a call holds a renewed lease; a lost replica's calls are
 * failed (or run again) by the survivors' sweeper; cancels reach the runner through store pub/sub.
 */
export class PromiseService {
  private readonly running = new Map<string, Tracked>();
  /** Tokens handed to other replicas at shutdown: their local run must not settle them. */
  private readonly released = new Set<string>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private closed = false;
  /** Shutting down: take over no other replica's promises. */
  private draining = false;

  constructor(
    private readonly store: Store,
    private readonly settings: PromiseSettings,
    private readonly hooks: PromiseHooks,
    private readonly log: Logger,
  ) {}

  /**
   * Listens for cancels and starts the lease sweeper. A store that is down at start-up (a sidecar
   * starting before Redis) does not stop the gateway: the subscription is retried in the background.
   */
  async start(): Promise<void> {
    await this.subscribe();
    // At most a second between sweeps: a lost replica's promises are taken over within leaseMs + 1 s
    // (issue 24; at leaseMs / 2 it took up to 1.5 × leaseMs), for one cheap store query a second.
    this.sweepTimer = setInterval(() => void this.sweep(), Math.max(50, Math.min(1_000, this.settings.leaseMs / 2)));
    this.sweepTimer.unref();
  }

  private async subscribe(): Promise<void> {
    try {
      this.unsubscribe = await this.store.onCancel((token) => {
        if (token === LEASES_RELEASED) return void this.sweepAll();
        this.running.get(token)?.controller.abort(new GatewayError('CANCELLED', 'The promise was cancelled'));
      });
    } catch (err) {
      if (this.closed) return;
      this.log.warn({ err: String(err) }, 'cannot listen for cancels yet; retrying');
      setTimeout(() => void this.subscribe(), 1000).unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    await this.unsubscribe?.().catch(() => undefined);
  }

  /** How many promise calls run on this replica now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** Shutdown, first step: this replica stops taking over other replicas' promises (its own keep running). */
  drain(): void {
    this.draining = true;
  }

  /**
   * Shutdown, last step (issue 13 "Graceful shutdown"): hands the promises still running here to the
   * other replicas at once: renewals stop, the leases are released in the store's lease index, the
   * local calls are aborted without settling, and the other replicas are told to sweep now (they run
   * idempotent agents' calls again, and fail the others with WORKER_LOST, as for a lost replica).
   */
  async release(): Promise<number> {
    this.draining = true;
    const tracked = [...this.running.entries()];
    for (const [token, t] of tracked) {
      clearInterval(t.renew);
      this.released.add(token);
    }
    const released = await this.store.releaseLeases(
      tracked.map(([token]) => token),
      this.settings.replicaId,
    );
    for (const [token, t] of tracked) {
      t.controller.abort(new GatewayError('CANCELLED', 'This replica is shutting down'));
      if (released.includes(token)) publishPromise('released', t.agent);
    }
    if (released.length > 0) await this.store.publishCancel(LEASES_RELEASED);
    return released.length;
  }

  /** Turns a call still running here into a promise: stores it, keeps it running, settles it when done. */
  async adopt(agent: string, run: LocalRun, extra: { request?: unknown; conversationId?: string; principal: string }): Promise<PromiseInfo> {
    const message = 'The agent is working on it';
    const token = await this.create(agent, Date.now() + this.settings.leaseMs, {
      message,
      principal: extra.principal,
      ...(extra.request !== undefined ? { request: extra.request } : {}),
      ...(extra.conversationId ? { conversationId: extra.conversationId } : {}),
    });
    this.track(token, agent, run);
    return { token, message };
  }

  /** Maps an upstream promise to a gateway token (4.1.2): check-ins and cancels are forwarded upstream. */
  async adoptUpstream(agent: string, upstream: PromiseInfo, principal: string, conversationId?: string): Promise<PromiseInfo> {
    const token = await this.create(agent, NO_LEASE, {
      upstreamToken: upstream.token,
      principal,
      ...(upstream.message ? { message: upstream.message } : {}),
      ...(upstream.progress !== undefined ? { progress: upstream.progress } : {}),
      ...(upstream.estimated_time !== undefined ? { estimatedTime: upstream.estimated_time } : {}),
      ...(conversationId ? { conversationId } : {}),
    });
    return { ...upstream, token };
  }

  /** Stores a new running promise owned by this replica under a fresh unguessable token. */
  private async create(agent: string, leaseUntil: number, fields: Partial<PromiseRecord>): Promise<string> {
    const now = Date.now();
    const token = newToken('prm');
    const record: PromiseRecord = { ...fields, token, agent, status: 'running', owner: this.settings.replicaId, leaseUntil, createdAt: now, updatedAt: now };
    await this.store.createPromise(record, this.settings.ttlMs);
    publishPromise('created', agent);
    return token;
  }

  /** Keeps a local run's lease alive, reports its progress, and settles its promise when it ends. */
  private track(token: string, agent: string, run: LocalRun): void {
    const { replicaId, leaseMs } = this.settings;
    let ours = true;
    const renew = setInterval(() => {
      this.store
        .renewLease(token, replicaId, Date.now() + leaseMs)
        .then((ok) => {
          // Settled elsewhere (a cancel we missed) or taken over by another replica (our renewals came
          // too late): stop working on it, and leave its end to whoever owns it now.
          if (ok) return;
          ours = false;
          run.controller.abort(new GatewayError('CANCELLED', 'The promise is no longer ours'));
        })
        .catch((err: unknown) => this.log.warn({ err: String(err) }, 'lease renewal failed'));
    }, Math.max(20, leaseMs / 3));
    renew.unref();
    this.running.set(token, { controller: run.controller, renew, agent });
    let lastProgressWrite = 0;
    run.onProgress((p) => {
      if (Date.now() - lastProgressWrite < 250) return;
      lastProgressWrite = Date.now();
      void this.store.updatePromise(token, replicaId, p).catch(() => undefined);
    });
    void run.done
      .then((c) => (ours ? this.finishRun(token, agent, c) : undefined))
      .catch((err: unknown) => (ours ? this.finishRun(token, agent, { response: failureFromError(toGatewayError(err)) }) : undefined))
      .finally(() => {
        clearInterval(renew);
        this.running.delete(token);
        this.released.delete(token);
      });
  }

  private async finishRun(token: string, agent: string, collected: Collected): Promise<void> {
    const { replicaId } = this.settings;
    // Released at shutdown: another replica owns it now; what this aborted run says is not the answer.
    if (this.released.has(token)) return;
    const upstream = collected.upstreamPromise;
    if (upstream) {
      await this.whileStoreLives('an upstream promise', async () => {
        await this.store.updatePromise(token, replicaId, {
          upstreamToken: upstream.token,
          ...(upstream.progress !== undefined ? { progress: upstream.progress } : {}),
          ...(upstream.message ? { message: upstream.message } : {}),
        });
        await this.store.renewLease(token, replicaId, NO_LEASE);
      });
      return;
    }
    const failed = collected.response._meta.response_type === 'failure';
    const won = await this.whileStoreLives('a promise settlement', () =>
      this.store.settlePromise(token, { status: failed ? 'failed' : 'done', response: collected.response }, this.settings.ttlMs),
    );
    if (won) publishPromise(failed ? 'failed' : 'done', agent);
  }

  /**
   * A write that must land: retried through a store outage (failover, restart) for as long as the
   * promise may live, so the answer that arrived is kept rather than lost or replaced by the outage.
   */
  private whileStoreLives<T>(what: string, write: () => Promise<T>): Promise<T | undefined> {
    return retryStoreWrite(write, { until: Date.now() + this.settings.ttlMs, stopped: () => this.closed, log: this.log, what }).catch((err: unknown) => {
      this.log.error({ err: String(err), what }, 'a promise write failed');
      return undefined;
    });
  }

  /** 4.2 checkin: the answer when settled, else an updated promise; waits up to `waitMs` (long-poll). */
  async checkin(token: string, waitMs: number, caller: PromiseCaller): Promise<CanonicalResponse> {
    const deadline = Date.now() + Math.min(waitMs, this.settings.awaitMaxWaitMs);
    let pause = 50;
    for (;;) {
      const record = await this.mustGet(token, caller);
      if (record.status !== 'running') {
        await this.store.expirePromise(token, this.settings.readGraceMs);
        return present(record, record.response ?? failureResponse('INTERNAL_ERROR', 'The promise ended without an answer'));
      }
      if (record.upstreamToken) return present(record, await this.checkinUpstream(record));
      if (Date.now() >= deadline || this.closed) return present(record, asPromise(record, record));
      await sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
      pause = Math.min(pause * 2, 250);
    }
  }

  private async checkinUpstream(record: PromiseRecord): Promise<CanonicalResponse> {
    const collected = await this.hooks.forwardCheckin(record);
    const upstream = collected.upstreamPromise;
    if (upstream) return asPromise(record, { estimatedTime: upstream.estimated_time, message: upstream.message, progress: upstream.progress });
    // Stored with the conversation, so a later read of the settled answer carries it too.
    const response = present(record, collected.response);
    const failed = response._meta.response_type === 'failure';
    const won = await this.store.settlePromise(record.token, { status: failed ? 'failed' : 'done', response }, this.settings.readGraceMs);
    if (won) {
      publishPromise(failed ? 'failed' : 'done', record.agent);
      return response;
    }
    // A cancel (or another check-in) settled it first: that state is the truth.
    return (await this.store.getPromise(record.token))?.response ?? response;
  }

  /** 4.2 cancel: aborts the call wherever it runs and answers CANCELLED; a settled promise keeps its answer. */
  async cancel(token: string, caller: PromiseCaller): Promise<CanonicalResponse> {
    const record = await this.mustGet(token, caller);
    const cancelled = failureResponse('CANCELLED', 'The promise was cancelled');
    const won = record.status === 'running' && (await this.store.settlePromise(token, { status: 'cancelled', response: cancelled }, this.settings.readGraceMs));
    if (!won) return present(record, (await this.mustGet(token, caller)).response ?? cancelled);
    publishPromise('cancelled', record.agent);
    // Abort here at once when this replica runs the call; pub/sub tells the others.
    this.running.get(token)?.controller.abort(new GatewayError('CANCELLED', 'The promise was cancelled'));
    await this.store.publishCancel(token);
    if (record.upstreamToken) {
      await this.hooks.forwardCancel(record).catch((err: unknown) => this.log.warn({ err: String(err) }, 'upstream cancel failed'));
    }
    return present(record, cancelled);
  }

  /** The caller's promise; another caller's (or one its agent's check refuses) is as unknown as a token never issued. */
  private async mustGet(token: string, caller: PromiseCaller): Promise<PromiseRecord> {
    const record = await this.store.getPromise(token, caller.principal);
    if (!record || (caller.allowed && !caller.allowed(record))) throw unknownPromise();
    return record;
  }

  /** Sweeps until no expired lease is left (a replica that shut down may have released many at once). */
  private async sweepAll(): Promise<void> {
    for (let round = 0; round < 50 && (await this.sweep()) === SWEEP_BATCH; round++);
  }

  /** Finds promises whose runner stopped renewing its lease and fails them (or runs them again); returns how many it found. */
  async sweep(): Promise<number> {
    if (this.closed || this.draining) return 0;
    try {
      const now = Date.now();
      const expired = await this.store.expiredLeases(now, SWEEP_BATCH);
      for (const token of expired) {
        const claimed = await this.store.claimExpiredLease(token, this.settings.replicaId, now + this.settings.leaseMs, now);
        if (!claimed) continue;
        const again = await this.hooks.rerun(claimed).catch((err: unknown) => {
          this.log.warn({ agent: claimed.agent, err: String(err) }, 'could not tell whether a lost promise may run again');
          return null;
        });
        if (again) {
          this.log.info({ agent: claimed.agent }, 'running a lost promise again (idempotent agent)');
          this.track(token, claimed.agent, again);
          publishPromise('rerun', claimed.agent);
          continue;
        }
        const lost = failureResponse('WORKER_LOST', 'The gateway replica running this call was lost before it finished');
        if (await this.store.settlePromise(token, { status: 'failed', response: lost }, this.settings.ttlMs)) publishPromise('lost', claimed.agent);
      }
      return expired.length;
    } catch (err) {
      this.log.warn({ err: String(err) }, 'promise sweep failed');
      return 0;
    }
  }
}
