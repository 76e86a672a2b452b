import { describe, expect, it } from 'vitest';
import { createStore } from '../store/index.ts';
import type { Collected } from './collect.ts';
import { silentLogger } from '../base/logger.ts';
import type { LocalRun } from './promise-contract.ts';
import { PromiseService } from './promises.ts';
import { failureResponse } from './responses.ts';

const hooks = { forwardCheckin: async () => ({}) as Collected, forwardCancel: async () => undefined, rerun: async () => null };

/** A call that runs until aborted, then ends the way an aborted agent call does. */
function abortableRun(): LocalRun {
  const controller = new AbortController();
  const done = new Promise<Collected>((resolve) =>
    controller.signal.addEventListener('abort', () => resolve({ response: failureResponse('CANCELLED', 'aborted') }), { once: true }),
  );
  return { controller, done, onProgress: () => undefined };
}

describe('PromiseService', () => {
  it('regression: a replica whose lease was taken over stops the call without settling the promise', async () => {
    const store = await createStore({ kind: 'memory' }, silentLogger);
    const a = new PromiseService(store, { replicaId: 'replica-a', ttlMs: 60_000, readGraceMs: 1_000, leaseMs: 90, awaitMaxWaitMs: 1_000 }, hooks, silentLogger);
    const run = abortableRun();
    const { token } = await a.adopt('agent', run, { principal: 'owner-tag' });
    // Replica b takes the promise over (as its sweeper does when a's renewals came too late).
    const claimed = await store.claimExpiredLease(token, 'replica-b', Date.now() + 60_000, Date.now() + 3_600_000);
    expect(claimed?.owner).toBe('replica-b');
    // a's next renewal fails: it aborts its call...
    await run.done;
    await new Promise((r) => setTimeout(r, 50));
    // ...and leaves the promise to b: still running, b's to settle.
    expect(await store.getPromise(token)).toMatchObject({ status: 'running', owner: 'replica-b' });
    await a.close();
    await store.close();
  });
});
