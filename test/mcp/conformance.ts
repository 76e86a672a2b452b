/**
 * Runs the public MCP conformance suites (`@modelcontextprotocol/conformance`, server scenarios)
 * through the gateway: a gateway on a free loopback port fronts the conformance fixture server
 * (test/mcp/fixtures/conformance-server.ts, spawned over stdio by the `mcp` adapter), and the suite
 * talks to the gateway's `/mcp`. Two suites run: the newest stable (0.1.x, devDependency
 * `@modelcontextprotocol/conformance`) and the newest prerelease (0.2.x, devDependency alias
 * `mcp-conformance-next`), each for both revisions. They need Node ≥ 22 (`fs.globSync`): they run
 * under the `node` devDependency's binary (node_modules/node/bin/node), not the Node running this
 * script. Scenarios the gateway deliberately does not support are listed with their reason in
 * test/mcp/conformance-expected-failures*.yaml.
 *
 *   npx tsx test/mcp/conformance.ts                       # every run below; exit 0 when all pass
 *   npx tsx test/mcp/conformance.ts stable-active         # one run by name
 *   npx tsx test/mcp/conformance.ts next-2026 --scenario tools-call-sampling
 *
 * Prints the suite's own `Total: N passed, N failed` line, then one totals line per run.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startGateway, type TestGateway } from '../support/gateway.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** Node ≥ 22 for the suites, installed by the project's own files (devDependency `node`). */
export const SUITE_NODE = here('../../node_modules/node/bin/node');

/**
 * One conformance run: which suite, with which arguments, against which baseline, and how the
 * gateway speaks to the fixture behind it (`legacy`: 2025-11-25, where resources/subscribe exists;
 * `auto`: 2026-07-28, where `input_required` results pass through to 2026 clients).
 */
export interface ConformanceRun {
  name: string;
  suite: string;
  args: string[];
  expected: string;
  upstream: 'legacy' | 'auto';
}

const STABLE = here('../../node_modules/@modelcontextprotocol/conformance/dist/index.js');
const NEXT = here('../../node_modules/mcp-conformance-next/dist/index.js');

/** Every run `npm test` makes: the stable suite (active and `--suite all`), the prerelease per revision. */
export const RUNS: ConformanceRun[] = [
  { name: 'stable-active', suite: STABLE, args: [], expected: here('./conformance-expected-failures.yaml'), upstream: 'legacy' },
  { name: 'stable-all', suite: STABLE, args: ['--suite', 'all'], expected: here('./conformance-expected-failures.yaml'), upstream: 'legacy' },
  { name: 'next-2025', suite: NEXT, args: ['--spec-version', '2025-11-25'], expected: here('./conformance-expected-failures-2025.yaml'), upstream: 'legacy' },
  { name: 'next-2026', suite: NEXT, args: ['--requirements', '2026-07-28'], expected: here('./conformance-expected-failures-2026.yaml'), upstream: 'auto' },
];

/** The gateway config the suites run against: one MCP agent (the fixture), localhost-only. */
export function conformanceConfig(upstream: ConformanceRun['upstream']): Record<string, unknown> {
  return {
    server: { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] },
    agents: [
      {
        name: 'conformance',
        kind: 'mcp',
        description: 'The MCP conformance fixture server',
        command: process.execPath,
        args: ['--import', 'tsx', 'test/mcp/fixtures/conformance-server.ts'],
        protocol: upstream,
        // The suite's task tools (SEP-2663 scenarios): a 2026-07-28 upstream lists no task support.
        taskTools: { slow_compute: 'optional', failing_job: 'required', protocol_error_job: 'optional', confirm_delete: 'optional', multi_input: 'optional', test_tool_with_task: 'required' },
      },
    ],
  };
}

/** The outcome of one run: the suite's exit code, its output, its totals. */
export interface RunOutcome {
  name: string;
  code: number;
  output: string;
  passed: number;
  failed: number;
}

/** Starts the gateway the suites talk to (the fixture is up before it returns). */
export async function startConformanceGateway(upstream: ConformanceRun['upstream']): Promise<TestGateway> {
  const gw = await startGateway(conformanceConfig(upstream), { baseDir: REPO_ROOT });
  await gw.gateway.describeAgent('conformance');
  return gw;
}

/** Runs one suite against `url`; echoes its output unless quiet. */
export function runSuite(run: ConformanceRun, url: string, extraArgs: string[] = [], quiet = false): Promise<RunOutcome> {
  if (!existsSync(SUITE_NODE)) throw new Error(`${SUITE_NODE} is missing: run npm install (devDependency "node")`);
  const args = [run.suite, 'server', '--url', url, '--expected-failures', run.expected, ...run.args, ...extraArgs];
  return new Promise((resolve) => {
    const child = spawn(SUITE_NODE, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
      if (!quiet) process.stdout.write(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => {
      // A whole run ends with `Total: N passed, N failed`; a single --scenario with `Passed: N/M, N failed`.
      const total = /Total: (\d+) passed, (\d+) failed/.exec(output) ?? /Passed: (\d+)\/\d+, (\d+) failed/.exec(output);
      resolve({ name: run.name, code: code ?? 1, output, passed: Number(total?.[1] ?? 0), failed: Number(total?.[2] ?? 0) });
    });
  });
}

/** Runs the named runs (all by default) against one gateway. */
export async function runConformance(names: string[] = [], extraArgs: string[] = [], quiet = false): Promise<RunOutcome[]> {
  const runs = names.length > 0 ? RUNS.filter((r) => names.includes(r.name)) : RUNS;
  const out: RunOutcome[] = [];
  for (const run of runs) {
    const gw = await startConformanceGateway(run.upstream);
    try {
      out.push(await runSuite(run, `${gw.url}/mcp`, extraArgs, quiet));
    } finally {
      await gw.close();
    }
  }
  return out;
}

/** One line per run: `conformance <name>: N passed, N failed, exit C`. */
export function totalsLine(o: RunOutcome): string {
  return `conformance ${o.name}: ${o.passed} passed, ${o.failed} failed, exit ${o.code}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const names = argv.filter((a) => RUNS.some((r) => r.name === a));
  const extra = argv.filter((a) => !names.includes(a));
  const outcomes = await runConformance(names, extra);
  for (const o of outcomes) console.log(totalsLine(o));
  process.exit(outcomes.every((o) => o.code === 0) ? 0 : 1);
}
