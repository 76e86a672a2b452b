/**
 * The ONE contract every `Store` implementation passes (design.md "State": "two implementations
 * that pass one contract test suite"), in the style of Hono's shared router suite: an
 * implementation's test file calls `runStoreContract(name, makeStore)` and gets every case.
 *
 * `makeStore` returns a fresh, isolated store plus two hooks: `peer()` opens a second store over
 * the SAME backend (a second replica), and `keyCount()` counts what the backend holds, so
 * bounded growth is checked against the backend itself rather than through the store's reads.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import { promiseContract } from './contract-promises.ts';
import { ownerContract } from './contract-owner.ts';
import { linkedContract } from './contract-linked.ts';
import { retentionContract } from './contract-retention.ts';
import { stateContract } from './contract-state.ts';
import type { StoreHarness } from './contract-helpers.ts';

export type { StoreHarness } from './contract-helpers.ts';
export { answer, eventually, failure, newToken, runningPromise, sleep } from './contract-helpers.ts';

export type MakeStore = () => Promise<StoreHarness>;

/** Runs the shared Store contract (design.md "State") against one implementation. */
export function runStoreContract(name: string, makeStore: MakeStore): void {
  describe(`Store contract: ${name}`, () => {
    let harness: StoreHarness | undefined;
    beforeEach(async () => {
      harness = await makeStore();
    });
    afterEach(async () => {
      await harness?.cleanup();
      harness = undefined;
    });
    const current = (): StoreHarness => {
      if (!harness) throw new Error('no store: beforeEach did not run');
      return harness;
    };
    promiseContract(current);
    stateContract(current);
    ownerContract(current);
    retentionContract(current);
    linkedContract(current);
  });
}
