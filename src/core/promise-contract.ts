/**
 * What the promise service (promises.ts) is given and gives out: its settings, the calls it tracks,
 * who asks about a promise, and the hooks through which the gateway reaches agents for it.
 */
import type { PromiseRecord } from '../store/store.ts';
import type { Collected } from './collect.ts';

/** The promise service's settings, from the config (NLWeb 4.1.2). */
export interface PromiseSettings {
  replicaId: string;
  ttlMs: number;
  readGraceMs: number;
  leaseMs: number;
  awaitMaxWaitMs: number;
}

/** A call running on this replica that may become a promise. */
export interface LocalRun {
  controller: AbortController;
  done: Promise<Collected>;
  /** Latest progress seen on the stream (progress events). */
  onProgress(cb: (progress: { progress?: number; message?: string }) => void): void;
}

/**
 * Who asks about a promise: the caller's owner tag (only the creator's matches) and, optionally, a
 * further check on the record (the agent's authentication). A failed check answers as for an unknown token.
 */
export interface PromiseCaller {
  principal: string;
  allowed?: (record: PromiseRecord) => boolean;
}

/** What the gateway supplies so the promise service can talk to agents without knowing them. */
export interface PromiseHooks {
  /** Forwards a check-in of an upstream promise; returns what the upstream answered. */
  forwardCheckin(record: PromiseRecord): Promise<Collected>;
  /** Best-effort cancel of an upstream promise. */
  forwardCancel(record: PromiseRecord): Promise<void>;
  /** Runs a lost call again on this replica, when its agent is idempotent; null when it is not. */
  rerun(record: PromiseRecord): Promise<LocalRun | null>;
}
