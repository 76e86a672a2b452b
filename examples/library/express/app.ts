// An Express application that offers its FAQ on NLWeb, NLIP, MCP, A2A and webtools under /gateway
// (docs/library.md). Run: node app.ts (Node 22.18+ runs TypeScript as is; on 22.15-22.17 add --experimental-strip-types).
// nlgate reads the request body itself: mount it before any body parser (express.json()).
import express from 'express';
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

const app = express();
app.use('/gateway', gw.nodeHandler);
app.use(express.json());
app.get('/', (_req, res) => {
  res.send('The shop. Its FAQ agent is under /gateway.');
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}/gateway`);
});
process.once('SIGTERM', () => server.close(() => void gw.close()));
