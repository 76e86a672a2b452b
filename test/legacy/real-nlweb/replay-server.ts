/**
 * Answers as Microsoft's NLWeb server did: each request is matched to a recorded exchange by the
 * parameters that choose the answer (exchanges.ts), and the recorded response is sent back byte for
 * byte with its status and content type. A request asked several times during the recording gets
 * the recorded answers in order, the last one repeating. An unrecorded request is a 404 naming its
 * key, so a test that asks something new says what to record.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Recording, exchangeKey, queryOf, type Exchange } from './exchanges.ts';

export const RECORDING_FILE = new URL('./recording.json', import.meta.url);

export function loadRecording(file: URL = RECORDING_FILE): Recording {
  return Recording.parse(JSON.parse(readFileSync(file, 'utf8')));
}

export interface ReplayServer {
  url: string;
  /** Keys of the requests it could not answer. */
  misses: string[];
  close(): Promise<void>;
}

/** JSON-RPC answers carry the caller's id; the recorded one is replaced by the asker's. */
function withRequestId(response: string, body: string | undefined): string {
  try {
    const req = JSON.parse(body ?? '') as { id?: unknown };
    const res = JSON.parse(response) as { id?: unknown };
    if (req.id === undefined || res.id === undefined || res.id === req.id) return response;
    return response.replace(/"id": ?(\d+|"[^"]*")/, `"id": ${JSON.stringify(req.id)}`);
  } catch {
    return response;
  }
}

export async function startReplayServer(recording: Recording = loadRecording()): Promise<ReplayServer> {
  const byKey = new Map<string, Exchange[]>();
  for (const e of recording.exchanges) {
    const k = exchangeKey(e);
    byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  const served = new Map<string, number>();
  const misses: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined;
    const url = new URL(req.url ?? '/', 'http://replay');
    const key = exchangeKey({ method: req.method ?? 'GET', path: url.pathname, query: queryOf(url), body, accept: req.headers.accept });
    const list = byKey.get(key);
    if (!list) {
      misses.push(key);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message_type: 'error', error: `not recorded: ${key}` }));
      return;
    }
    const n = served.get(key) ?? 0;
    served.set(key, n + 1);
    const e = list[Math.min(n, list.length - 1)]!;
    res.writeHead(e.status, { 'content-type': e.contentType });
    res.end(e.path.startsWith('/mcp') ? withRequestId(e.response, body) : e.response);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, misses, close: () => new Promise((r) => server.close(() => r())) };
}
