/**
 * Runs one of the repository's demo agents as a server, so `docker compose up` (and anyone trying the
 * docs by hand) can put a real agent of every protocol behind the gateway. The servers themselves are
 * the test agents under test/ (the same code the suites run against); this file only listens.
 * (It imports no module that starts a server on import: bundled, every module shares one
 * import.meta.url, so another file's "am I the main module" check would fire here too.)
 *
 *   npx tsx examples/demo-agents.ts <agent>       # or, compiled: node dist/demo-agents.js <agent>
 *
 * Agents: webtool (the kitchen webtool, /kitchen), nlip (POST /nlip/), legacy-a | legacy-b | legacy-c
 * (an older NLWeb REST generation), nlweb-v055 | nlweb-v054 (POST /ask, /await).
 * HOST (default 127.0.0.1) and PORT (default: the agent's port below) choose the listener.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { createLegacyHandler } from '../test/legacy/legacy-server.ts';
import { createNlipTestAgent } from '../test/nlip/nlip-test-agent.ts';
import { createV054Agent } from '../test/nlweb/agents/v054-agent.ts';
import { createV055Agent } from '../test/nlweb/agents/v055-agent.ts';
import { kitchenVersions } from './webtools/kitchen.ts';
import { createWebtoolApp } from './webtools/webtool-app.ts';

type Listener = { fetch: Hono['fetch'] } | { handler: (req: IncomingMessage, res: ServerResponse) => void };

/** Every demo agent: its default port and how to build it. */
export const DEMO_AGENTS: Record<string, { port: number; path: string; create: () => Listener }> = {
  webtool: { port: 8090, path: '/kitchen', create: () => ({ fetch: createWebtoolApp('/kitchen', () => kitchenVersions).fetch }) },
  'nlweb-v055': { port: 8091, path: '/ask', create: () => ({ fetch: (createV055Agent().app as unknown as Hono).fetch }) },
  'nlweb-v054': { port: 8092, path: '/ask', create: () => ({ fetch: (createV054Agent().app as unknown as Hono).fetch }) },
  nlip: { port: 8093, path: '/nlip/', create: () => ({ handler: createNlipTestAgent().handler }) },
  'legacy-a': { port: 8094, path: '/ask', create: () => ({ handler: createLegacyHandler('A').handler }) },
  'legacy-b': { port: 8095, path: '/ask', create: () => ({ handler: createLegacyHandler('B').handler }) },
  'legacy-c': { port: 8096, path: '/ask', create: () => ({ handler: createLegacyHandler('C').handler }) },
};

/** Starts demo agent `name` on HOST/PORT and prints its URL. */
function main(name: string): void {
  const demo = DEMO_AGENTS[name];
  if (!demo) {
    console.error(`usage: demo-agents <${Object.keys(DEMO_AGENTS).join('|')}>  (HOST, PORT from the environment)`);
    process.exit(2);
  }
  const port = process.env.PORT ? Number(process.env.PORT) : demo.port;
  const hostname = process.env.HOST || '127.0.0.1';
  const listener = demo.create();
  const announce = (actual: number) => console.log(`demo agent ${name} on http://${hostname}:${actual}${demo.path}`);
  if ('fetch' in listener) serve({ fetch: listener.fetch, port, hostname }, (info) => announce(info.port));
  else {
    const server = createServer(listener.handler);
    server.listen(port, hostname, () => announce((server.address() as { port: number }).port));
  }
  // Containers stop with SIGTERM; a demo agent has nothing to drain.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv[2] ?? '');
