/**
 * Runs the NLIP test agent as a standalone server, for the docs' curl examples and manual tries
 * (`config/examples/nlip-upstream.yaml` points at this port):
 *
 *   npx tsx test/nlip/serve.ts [port]   # default port 8093
 */
import { createServer } from 'node:http';
import { createNlipTestAgent } from './nlip-test-agent.ts';

const port = Number(process.argv[2] ?? 8093);
const agent = createNlipTestAgent();
createServer(agent.handler).listen(port, '127.0.0.1', () => {
  console.log(`NLIP test agent on http://127.0.0.1:${port} (POST /nlip/)`);
});
