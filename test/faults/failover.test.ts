/**
 * Failover loses no promise (issue "Faults and scale-out" item 2, regression for "15–16 of 50
 * promises end as failure 'The state store is unavailable'"): two replicas, a Sentinel set, the
 * master killed with SIGKILL while promises run; and one Redis with AOF restarted. The full figures
 * (100 promises) come from `npm run failover` and are kept in docs/reliability.md.
 */
import { describe, expect, it } from 'vitest';
import { runFailover } from './failover-run.ts';

describe('store failover while promises run', () => {
  it('regression: a Sentinel failover loses no promise and duplicates none', async () => {
    const f = await runFailover({ count: 20, delayMs: 3_000, mode: 'sentinel-failover' });
    expect(f).toMatchObject({ lost: 0, duplicated: 0, answered: 20, lostDetail: {} });
  }, 120_000);

  it('a Redis restart with AOF loses no promise and duplicates none', async () => {
    const f = await runFailover({ count: 20, delayMs: 3_000, mode: 'aof-restart' });
    expect(f).toMatchObject({ lost: 0, duplicated: 0, answered: 20, lostDetail: {} });
  }, 120_000);
});
