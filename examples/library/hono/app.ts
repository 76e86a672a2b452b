// A Hono application that offers its FAQ on NLWeb, NLIP, MCP, A2A and webtools under /gateway
// (docs/library.md). Run: node app.ts (Node 22.18+ runs TypeScript as is; on 22.15-22.17 add --experimental-strip-types), then
// curl -X POST localhost:3000/gateway/ask -H 'content-type: application/json' -d '{"query":{"text":"returns"}}'
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createNlgate, functionAgent } from 'nlgate';

const FAQ = [
  { '@type': 'Question', name: 'How do returns work?', url: 'https://example.org/faq#returns', text: 'Send it back within 30 days.' },
  { '@type': 'Question', name: 'When do you ship?', url: 'https://example.org/faq#shipping', text: 'Orders leave the same day.' },
];

const gw = await createNlgate({
  agents: [
    functionAgent({
      name: 'faq',
      description: 'Answers from our FAQ',
      ask: async ({ query }) => FAQ.filter((q) => q.name.toLowerCase().includes(query.toLowerCase().split(' ')[0] ?? '')),
    }),
  ],
  store: { kind: 'memory' },
});

const app = new Hono();
app.get('/', (c) => c.text('The shop. Its FAQ agent is under /gateway.'));
app.route('/gateway', gw.app);

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}/gateway`);
});
process.once('SIGTERM', () => server.close(() => void gw.close()));
