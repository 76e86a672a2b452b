/**
 * Runs one of the NLWeb test agents as a standalone server, for the docs' curl examples and manual
 * tries (`config/examples/nlweb-upstream.yaml` points at these ports):
 *
 *   npx tsx test/nlweb/agents/serve.ts v055 [port]   # default port 8091
 *   npx tsx test/nlweb/agents/serve.ts v054 [port]   # default port 8092
 */
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { createV054Agent } from './v054-agent.ts';
import { createV055Agent } from './v055-agent.ts';

const which = process.argv[2] ?? 'v055';
if (which !== 'v055' && which !== 'v054') {
  console.error('usage: serve.ts v055|v054 [port]');
  process.exit(2);
}
const port = Number(process.argv[3] ?? (which === 'v055' ? 8091 : 8092));
const agent = which === 'v055' ? createV055Agent() : createV054Agent();
serve({ fetch: (agent.app as unknown as Hono).fetch, hostname: '127.0.0.1', port }, (info) => {
  console.log(`NLWeb ${which} test agent on http://127.0.0.1:${info.port} (POST /ask, POST /await)`);
});
