import { execFileSync } from 'node:child_process';

/**
 * Runs once before all suites. Under CI=true a missing redis-server is a failure (the Redis suites
 * must run there); elsewhere the Redis suites say so loudly and skip.
 */
export default function setup(): void {
  let found = Boolean(process.env.REDIS_URL);
  if (!found) {
    try {
      execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
      found = true;
    } catch {
      found = false;
    }
  }
  if (!found) {
    const msg = 'redis-server is not on PATH and REDIS_URL is unset: the Redis suites cannot run.';
    if (process.env.CI === 'true') throw new Error(`${msg} CI must run them (.ci/run installs redis-server).`);
    console.warn(`\n*** ${msg} They will be SKIPPED. ***\n`);
  }
}
