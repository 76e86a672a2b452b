/**
 * `npm run failover`: the failover figures of docs/reliability.md (issue "Faults and scale-out"
 * item 2). A Sentinel set (master, replica, three sentinels) and two gateway replicas on loopback,
 * 100 promises running, the master killed with SIGKILL; then the same with one Redis (AOF, fsync
 * always) killed and restarted. FAILOVER_PROMISES and FAILOVER_DELAY_MS change the load.
 */
import { runFailover } from '../test/faults/failover-run.ts';

const count = Number(process.env.FAILOVER_PROMISES ?? 100);
const delayMs = Number(process.env.FAILOVER_DELAY_MS ?? 5_000);
let failed = false;
for (const mode of ['sentinel-failover', 'aof-restart'] as const) {
  const f = await runFailover({ count, delayMs, mode });
  console.log(JSON.stringify(f));
  console.log(
    `${mode}: ${f.answered}/${f.promises} answered, ${f.lost} lost ${JSON.stringify(f.lostDetail)}, ${f.duplicated} duplicated, ` +
      `${f.failedDuringSwitch} requests refused (503) during the switch, ready again after ${f.recoveryMs} ms` +
      (f.failoverMs !== undefined ? ` (sentinels elected a new master after ${f.failoverMs} ms)` : ''),
  );
  if (f.lost > 0 || f.duplicated > 0) failed = true;
}
process.exit(failed ? 1 : 0);
