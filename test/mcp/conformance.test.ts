/**
 * The public MCP conformance suites through the gateway, as part of `npm test`: the newest stable
 * (`--suite all`, which includes the active suite) and the newest prerelease for each revision,
 * under Node ≥ 22 from the `node` devDependency. Every failure must be one of the listed expected
 * failures (the suite exits non-zero for an unexpected failure and for a stale expected one). Same
 * runs as `npx tsx test/mcp/conformance.ts`; the totals of each are printed.
 */
import { describe, expect, it } from 'vitest';
import { RUNS, runSuite, startConformanceGateway, totalsLine } from './conformance.ts';

const IN_NPM_TEST = ['stable-all', 'next-2025', 'next-2026'];

describe('@modelcontextprotocol/conformance through the gateway', () => {
  it.each(RUNS.filter((r) => IN_NPM_TEST.includes(r.name)))('$name: every failure is a listed expected one, exit 0', async (run) => {
    const gw = await startConformanceGateway(run.upstream);
    try {
      const outcome = await runSuite(run, `${gw.url}/mcp`, [], true);
      console.log(totalsLine(outcome));
      expect(outcome.passed, outcome.output.slice(-3000)).toBeGreaterThan(0);
      expect(outcome.code, outcome.output.slice(-3000)).toBe(0);
    } finally {
      await gw.close();
    }
  }, 300_000);
});
