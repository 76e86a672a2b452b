// A plain node:http server that offers its FAQ on NLWeb, NLIP, MCP, A2A and webtools under /gateway
// (docs/library.md). Run: node app.ts (Node 22.18+ runs TypeScript as is; on 22.15-22.17 add --experimental-strip-types).
// node:http has no router: `basePath` tells nlgate the prefix its requests arrive with.
import { createServer } from 'node:http';
import { createNlgate, functionAgent } from 'nlgate';

const FAQ = [
  { '@type': 'Question', name: 'How do returns work?', url: 'https://example.org/faq#returns', text: 'Send it back within 30 days.' },
  { '@type': 'Question', name: 'When do you ship?', url: 'https://example.org/faq#shipping', text: 'Orders leave the same day.' },
];

const gw = await createNlgate(
  {
    agents: [
      functionAgent({
        name: 'faq',
        description: 'Answers from our FAQ',
        ask: async ({ query }) => FAQ.filter((q) => q.name.toLowerCase().includes(query.toLowerCase().split(' ')[0] ?? '')),
      }),
    ],
    store: { kind: 'memory' },
  },
  { basePath: '/gateway' },
);

const server = createServer((req, res) => {
  if (req.url === '/gateway' || req.url?.startsWith('/gateway/')) return void gw.nodeHandler(req, res);
  res.end('The shop. Its FAQ agent is under /gateway.');
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}/gateway`);
});
process.once('SIGTERM', () => server.close(() => void gw.close()));
