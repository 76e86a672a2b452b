/** Fixtures and bounded waits shared by the Store contract files (contract.ts). */
import { randomBytes } from 'node:crypto';
import type { CanonicalResponse } from '../protocol/nlweb/index.ts';
import type { PromiseRecord, Store, StoreCaps } from './store.ts';

/** One store under test, with the hooks the contract needs. */
export interface StoreHarness {
  store: Store;
  /** Another store instance over the same backend: a second gateway replica. */
  peer(): Promise<Store>;
  /** A store with these caps over a fresh, empty backend (closed and removed by cleanup). */
  capped(caps: Partial<StoreCaps>): Promise<Store>;
  /** Keys/entries the backend holds right now for this store (expired-but-unreclaimed included where visible). */
  keyCount(): Promise<number>;
  /** Closes the store and its peers and removes what they left. */
  cleanup(): Promise<void>;
}

/** A fresh unguessable token (≥128 bits, base64url), as the gateway issues them. */
export function newToken(): string {
  return randomBytes(16).toString('base64url');
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until `accept` holds, failing after `timeoutMs` (every wait in the suite is bounded). */
export async function eventually<T>(probe: () => Promise<T>, accept: (v: T) => boolean, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await sleep(25);
  }
}

/** A running promise record owned by `owner`, leased until `leaseUntil`. */
export function runningPromise(overrides: Partial<PromiseRecord> = {}): PromiseRecord {
  const now = Date.now();
  return {
    token: newToken(),
    agent: 'recipes',
    status: 'running',
    owner: 'replica-a',
    leaseUntil: now + 60_000,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

/** A canonical answer carrying `text`, so a test can tell whose settle won. */
export function answer(text: string): CanonicalResponse {
  return { _meta: { response_type: 'answer', version: '0.55' }, results: [{ '@type': 'Thing', name: text }] };
}

/** A canonical failure with `code`. */
export function failure(code: string, message: string): CanonicalResponse {
  return { _meta: { response_type: 'failure', version: '0.55' }, error: { code, message } };
}
