import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenRaw, readBody, type TestServer } from './http.ts';

/**
 * The faults the proxy injects into an upstream's answer (issue "Faults and scale-out", item 1).
 * Connection-level faults (refused, DNS, TLS) need no proxy: they are config URLs.
 */
export const RESPONSE_FAULTS = ['reset-mid-body', 'hang', 'drip', 'sse-cut-mid-event', 'sse-garbage', 'html-200'] as const;
export type ResponseFault = (typeof RESPONSE_FAULTS)[number];

/** Which requests a fault applies to (the rest pass through untouched), e.g. only `tools/call`. */
export type FaultMatch = (req: IncomingMessage, body: string) => boolean;

export interface FaultProxy extends TestServer {
  /** Injects `fault` into every matching request from now on; `undefined` passes everything through. */
  setFault(fault: ResponseFault | undefined, match?: FaultMatch): void;
  /** How many requests the fault was applied to. */
  faulted(): number;
}

const GARBAGE = '\u0000\u0001 not an SSE line {"@type":\n<html>oops</html>\n\n';

/**
 * A small HTTP fault proxy of the project's own, between the gateway and a real upstream process:
 * it forwards every request to `target`, and for requests that match the current fault it breaks
 * the answer the way a misbehaving network or upstream does.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  let fault: ResponseFault | undefined;
  let match: FaultMatch = () => true;
  let faulted = 0;
  const held = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  const server = await listenRaw(async (req, res) => {
    const body = await readBody(req);
    const active = fault !== undefined && match(req, body) ? fault : undefined;
    if (active) faulted++;
    if (active === 'hang') return void held.add(res);
    if (active === 'html-200') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>');
    }
    // A long-lived event stream (MCP's legacy SSE transport answers calls on its GET stream) is
    // piped, and a fault set while it is open breaks it at its next chunk.
    if (req.method === 'GET' && (req.headers.accept ?? '').includes('text/event-stream')) {
      return pipeThrough(target, req, body, res, () => (fault !== undefined && match(req, body) ? (faulted++, fault) : undefined));
    }
    if (!active) return pipeThrough(target, req, body, res, () => undefined);
    const upstream = await forward(target, req, body).catch(() => undefined);
    if (!upstream) return void res.socket?.destroy();
    const headers = { ...upstream.headers };
    delete headers['content-length'];
    res.writeHead(upstream.status, active === 'reset-mid-body' ? upstream.headers : headers);
    const text = upstream.body.toString('utf8');
    switch (active) {
      case 'reset-mid-body':
        res.write(upstream.body.subarray(0, Math.max(1, Math.floor(upstream.body.length / 2))));
        return void setImmediate(() => res.socket?.destroy());
      case 'sse-cut-mid-event': {
        // Ends cleanly in the middle of an event: after the first complete event, half of the next.
        const second = text.indexOf('\n\n') + 2;
        const cut = second > 1 && second < text.length ? second + Math.max(1, Math.floor((text.length - second) / 3)) : Math.floor(text.length / 2);
        return void res.end(text.slice(0, cut));
      }
      case 'sse-garbage':
        return void res.end(text.split('\n\n').join(`\n\n${GARBAGE}`));
      case 'drip': {
        held.add(res);
        let i = 0;
        const tick = () => {
          if (res.destroyed || i >= text.length) return void held.delete(res);
          res.write(text[i++]!);
          const t = setTimeout(tick, 1000);
          timers.add(t);
          t.unref();
        };
        return tick();
      }
    }
  });

  return {
    ...server,
    setFault(f, m) {
      fault = f;
      match = m ?? (() => true);
    },
    faulted: () => faulted,
    close: async () => {
      timers.forEach(clearTimeout);
      held.forEach((r) => r.socket?.destroy());
      await server.close();
    },
  };
}

/**
 * Passes a request through, streaming the answer chunk by chunk; `faultNow` is asked at every chunk,
 * so a fault set while a stream is open breaks that stream (reset, cut mid-event, garbage, drip, hang).
 */
function pipeThrough(target: string, req: IncomingMessage, body: string, res: ServerResponse, faultNow: () => ResponseFault | undefined): void {
  const base = new URL(target);
  const out = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: req.url, headers: { ...req.headers, host: base.host } }, (up) => {
    res.writeHead(up.statusCode ?? 502, cleanHeaders(up.headers));
    res.on('close', () => up.destroy());
    let stalled = false;
    up.on('data', (chunk: Buffer) => {
      if (stalled) return;
      const f = faultNow();
      const half = chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2)));
      switch (f) {
        case undefined:
        case 'html-200':
          return void res.write(chunk);
        case 'reset-mid-body':
          res.write(half);
          return void setImmediate(() => res.socket?.destroy());
        case 'sse-cut-mid-event':
          stalled = true;
          return void res.end(half);
        case 'sse-garbage':
          return void res.write(GARBAGE + chunk.toString('utf8'));
        case 'hang':
        case 'drip':
          // Nothing more arrives in time: a drip of one byte a second never completes an event.
          stalled = true;
          return void res.write(chunk.subarray(0, 1));
      }
    });
    up.on('end', () => !stalled && res.end());
  });
  out.on('error', () => res.socket?.destroy());
  out.end(body);
}

interface Forwarded {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Sends the request on to the real upstream and reads its whole answer (test agents answer quickly). */
function forward(target: string, req: IncomingMessage, body: string): Promise<Forwarded> {
  const base = new URL(target);
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: base.host };
    const out = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: req.url, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: cleanHeaders(res.headers), body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}

function cleanHeaders(h: IncomingMessage['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive') out[k] = v;
  return out;
}
