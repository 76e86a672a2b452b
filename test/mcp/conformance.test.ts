/**
 * The public MCP conformance suite (0.1.13, server scenarios) through the gateway, as part of
 * `npm test`: every failure must be one of test/mcp/conformance-expected-failures.yaml (the suite
 * exits non-zero for an unexpected failure and for a stale expected one). Same run as
 * `npx tsx test/mcp/conformance.ts`.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from './conformance.ts';

describe('@modelcontextprotocol/conformance through the gateway', () => {
  it('passes every scenario except the documented expected failures', async () => {
    const { code, output } = await runConformance([], true);
    const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
    expect(total, output.slice(-2000)).not.toBeNull();
    expect(Number(total![1])).toBeGreaterThanOrEqual(38);
    expect(code, output.slice(-2000)).toBe(0);
  }, 60_000);
});
