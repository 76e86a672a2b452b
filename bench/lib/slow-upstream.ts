/**
 * A Node NLWeb upstream for what nginx cannot do: answer after a delay (so the gateway makes a
 * promise, for the `/await` scenario), and stand in for nginx when the machine has none.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANSWER_JSON, ANSWER_SSE } from './upstream.ts';

export interface NodeUpstream {
  url: string;
  close(): Promise<void>;
}

/** Serves `/ask` (JSON), `/sse/ask` (SSE) and `/await`, each after `delayMs`. */
export async function startNodeUpstream(delayMs = 0): Promise<NodeUpstream> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      const answer = () => {
        const sse = req.url?.startsWith('/sse/');
        res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' }).end(sse ? ANSWER_SSE : ANSWER_JSON);
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
