import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

/** A server listening on a free loopback port. */
export interface TestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves a Hono app (or any fetch handler) on 127.0.0.1 and a free port. */
export async function listenApp(app: Pick<Hono, 'fetch'>): Promise<TestServer> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      const port = info.port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Serves a raw node:http handler on 127.0.0.1 and a free port (for wire formats Hono would tidy up). */
export async function listenRaw(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Reads a whole request body as text (for raw handlers). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses an SSE text body into `{event, data}` pairs (data JSON-parsed when it is JSON). */
export function parseSseText(text: string): Array<{ event?: string; data: unknown }> {
  return text
    .split(/\n\n/)
    .map((block) => block.split('\n').filter((l) => l.length > 0 && !l.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
      const raw = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      let data: unknown = raw;
      try {
        data = JSON.parse(raw);
      } catch {
        /* not JSON: keep the text */
      }
      return { event, data };
    });
}
