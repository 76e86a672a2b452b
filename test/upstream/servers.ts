/**
 * Loopback servers for the upstream-policy tests: a canary that records any request it gets (a
 * second origin no request may ever reach), a scriptable upstream that redirects or answers, and
 * a flood that streams far more than any cap without holding it in memory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenRaw, type TestServer } from '../support/http.ts';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface RecordingServer extends TestServer {
  seen: SeenRequest[];
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}

/** Records every request and answers 200 `{"canary":true}`: reaching it is the bug. */
export async function startCanary(): Promise<RecordingServer> {
  const seen: SeenRequest[] = [];
  const server = await listenRaw(async (req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: await readBody(req) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"canary":true}');
  });
  return Object.assign(server, { seen });
}

/** How the scripted upstream answers a request: a redirect, or a reply. */
export type Reply = { redirect: number; location: string } | { status?: number; type?: string; body: string };

/** An upstream whose answer per request is decided by `route(req)`; it records what it saw. */
export async function startScripted(route: (req: SeenRequest) => Reply): Promise<RecordingServer> {
  const seen: SeenRequest[] = [];
  const server = await listenRaw(async (req, res) => {
    const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: await readBody(req) };
    seen.push(request);
    const reply = route(request);
    if ('redirect' in reply) return void res.writeHead(reply.redirect, { location: reply.location, 'content-length': '0' }).end();
    res.writeHead(reply.status ?? 200, { 'content-type': reply.type ?? 'application/json' }).end(reply.body);
  });
  return Object.assign(server, { seen });
}

export interface FloodServer extends TestServer {
  /** Bytes the server managed to write before the client went away. */
  written(): number;
  /** Resolves when the client dropped the connection (or the flood ended). */
  closed(): Promise<void>;
}

/**
 * Streams `totalBytes` of one body (a JSON string that never ends in time, or one SSE event with
 * no blank line), writing only as fast as the client reads, so the test process never holds it.
 */
export async function startFlood(kind: 'json' | 'sse', totalBytes: number): Promise<FloodServer> {
  let written = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((r) => (done = r));
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const server = await listenRaw((req, res: ServerResponse) => {
    req.resume();
    res.writeHead(200, { 'content-type': kind === 'sse' ? 'text/event-stream' : 'application/json' });
    res.write(kind === 'sse' ? 'event: start\ndata: {}\n\nevent: result\ndata: {"item":{"name":"' : '{"results":[{"name":"');
    res.on('close', done);
    const pump = () => {
      while (written < totalBytes) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end('"}]}');
    };
    pump();
  });
  return Object.assign(server, { written: () => written, closed: () => finished });
}
