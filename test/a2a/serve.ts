/**
 * Runs the SDK-built A2A test agent as a standalone server, for docs/a2a.md's examples and manual
 * tries (`config/examples/a2a.yaml` points at this port):
 *
 *   npx tsx test/a2a/serve.ts [port]   # default port 8094
 */
import { startUpstreamA2a } from './upstream-agent.ts';

const port = Number(process.argv[2] ?? 8094);
const agent = await startUpstreamA2a({ port, slowMs: 3000 });
console.log(`A2A test agent on ${agent.url} (card: ${agent.url}/.well-known/agent-card.json)`);
