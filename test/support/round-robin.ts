import { request as httpRequest } from 'node:http';
import { listenRaw, type TestServer } from './http.ts';

/** A load balancer with no affinity: every request goes to the next replica in turn. */
export interface RoundRobin extends TestServer {
  /** Which replica (index) each request went to, in order, with its method and path. */
  routed: Array<{ replica: number; method: string; path: string }>;
}

/**
 * Starts an HTTP round-robin proxy in front of `replicas` (base URLs). Per request, not per
 * connection, so a keep-alive client still alternates; streams (SSE) are piped as they come.
 */
export async function startRoundRobin(replicas: string[]): Promise<RoundRobin> {
  let next = 0;
  const routed: RoundRobin['routed'] = [];
  const server = await listenRaw((req, res) => {
    const i = next++ % replicas.length;
    routed.push({ replica: i, method: req.method ?? 'GET', path: req.url ?? '/' });
    const target = new URL(replicas[i]!);
    const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    res.on('close', () => out.destroy());
    out.on('error', () => res.socket?.destroy());
    req.pipe(out);
  });
  return Object.assign(server, { routed });
}
