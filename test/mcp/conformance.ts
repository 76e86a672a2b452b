/**
 * Runs the public MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.13, server
 * scenarios) through the gateway: a gateway on a free loopback port fronts the conformance fixture
 * server (test/mcp/fixtures/conformance-server.ts, spawned over stdio by the `mcp` adapter), and the
 * suite talks to the gateway's `/mcp`. Scenarios the gateway deliberately does not support are listed
 * with their reason in test/mcp/conformance-expected-failures.yaml.
 *
 *   npx tsx test/mcp/conformance.ts            # exit 0 when every failure is an expected one
 *   npx tsx test/mcp/conformance.ts --scenario tools-call-sampling
 *
 * Ends with the suite's own `Total: N passed, N failed` line.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startGateway } from '../support/gateway.ts';

const SUITE = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
const EXPECTED = fileURLToPath(new URL('./conformance-expected-failures.yaml', import.meta.url));

/** The gateway config the suite runs against: one MCP agent (the fixture), localhost-only. */
export const CONFORMANCE_CONFIG = {
  server: { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] },
  agents: [
    {
      name: 'conformance',
      kind: 'mcp',
      description: 'The MCP conformance fixture server',
      command: process.execPath,
      args: ['--import', 'tsx', 'test/mcp/fixtures/conformance-server.ts'],
    },
  ],
};

/** Runs the suite against a started gateway; resolves with its exit code and output (echoed unless quiet). */
export async function runConformance(extraArgs: string[] = [], quiet = false): Promise<{ code: number; output: string }> {
  const gw = await startGateway(CONFORMANCE_CONFIG, { baseDir: REPO_ROOT });
  try {
    await gw.gateway.describeAgent('conformance'); // the fixture is up before the suite starts
    const args = [SUITE, 'server', '--url', `${gw.url}/mcp`, '--expected-failures', EXPECTED, ...extraArgs];
    return await new Promise((resolve) => {
      const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const keep = (chunk: Buffer) => {
        output += chunk.toString();
        if (!quiet) process.stdout.write(chunk);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.on('close', (code) => resolve({ code: code ?? 1, output }));
    });
  } finally {
    await gw.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { code } = await runConformance(process.argv.slice(2));
  process.exit(code);
}
