/**
 * A pass-through proxy between nlgate and the real NLWeb server that keeps every exchange: the
 * request's method, path, parameters and body, and the response's status, type and exact bytes.
 * Those become the suite's fixtures (test/legacy/real-nlweb/).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { queryOf, type Exchange } from '../../test/legacy/real-nlweb/exchanges.ts';

export interface Recorder {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

export async function startRecorder(upstream: string): Promise<Recorder> {
  const exchanges: Exchange[] = [];
  const target = new URL(upstream);
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', upstream);
    const headers = { ...req.headers, host: target.host };
    const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      const got: Buffer[] = [];
      upRes.on('data', (c: Buffer) => {
        got.push(c);
        res.write(c);
      });
      upRes.on('end', () => {
        res.end();
        exchanges.push({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: queryOf(url),
          ...(req.headers.accept ? { accept: req.headers.accept } : {}),
          ...(body.length ? { body: body.toString('utf8') } : {}),
          status: upRes.statusCode ?? 0,
          contentType: String(upRes.headers['content-type'] ?? ''),
          response: Buffer.concat(got).toString('utf8'),
        });
      });
    });
    up.on('error', (e) => {
      res.writeHead(502);
      res.end(String(e));
    });
    up.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, exchanges, close: () => new Promise((r) => server.close(() => r())) };
}
