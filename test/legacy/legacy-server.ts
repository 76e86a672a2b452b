import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { listenRaw, readBody, type TestServer } from '../support/http.ts';
import { nonStreamingReply, pyDumps, scriptFor, SITES, type Generation, type LegacyQuery, type Step } from './scripts.ts';

/** One request as the test server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string[]>;
  body?: unknown;
  headers: IncomingHttpHeaders;
  /** The parameters the server acted on, after its generation's rules. */
  read?: LegacyQuery;
}

/** A legacy NLWeb server of one generation on a loopback port, recording every request. */
export interface LegacyServer extends TestServer {
  generation: Generation;
  requests: RecordedRequest[];
  /** The requests to `/ask` or `/mcp` that carried a query. */
  asks(): RecordedRequest[];
  /** Forget the JSON-RPC `initialized` flag, as a restarted late-2025 server does. */
  forgetInitialized(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Params = Record<string, unknown>;

/** `get_param(..., list)`: mid-2025 splits on commas (after stripping brackets); late-2025 tries JSON first. */
function readPrev(value: unknown, gen: Generation): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== 'string' || value.length === 0) return [];
  if (gen === 'C') {
    try {
      const parsed = JSON.parse(value);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      /* fall back to commas */
    }
  }
  return value.replace(/^\[|\]$/g, '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined);
const isFalse = (v: unknown) => v === false || v === 0 || (typeof v === 'string' && ['false', '0'].includes(v.toLowerCase()));

/** What a generation reads from a request (A: the query string only; B and C: a POST body too). */
function readQuery(params: Params, gen: Generation): LegacyQuery {
  const q: LegacyQuery = { query: str(params.query) ?? '', prev: readPrev(params.prev, gen) };
  for (const key of ['site', 'decontextualized_query', 'generate_mode', 'mode', 'query_id', 'conversation_id'] as const) {
    const v = str(params[key]);
    if (v !== undefined) q[key] = v;
  }
  // C ignores the client's query_id (interop.md); A and B echo it.
  if (gen === 'C') delete q.query_id;
  return q;
}

async function playSse(res: ServerResponse, steps: Step[], wrap?: (frame: unknown) => unknown, tail?: unknown): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const step of steps) {
    if (res.destroyed) return;
    if ('delayMs' in step) await sleep(step.delayMs);
    else if ('comment' in step) res.write(`: ${step.comment}\n\n`);
    else res.write(`data: ${JSON.stringify(wrap ? wrap(step.frame) : step.frame)}\n\n`);
  }
  if (tail !== undefined) res.write(`data: ${JSON.stringify(tail)}\n\n`);
  res.end();
}

async function playDelays(steps: Step[]): Promise<void> {
  for (const step of steps) if ('delayMs' in step) await sleep(step.delayMs);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The request handler of a legacy server of one generation, with what it recorded. */
export interface LegacyHandler {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  requests: RecordedRequest[];
  forgetInitialized(): void;
}

/** A node:http handler that speaks one generation's `/ask`, `/sites` and `/mcp` (interop.md). */
export function createLegacyHandler(generation: Generation): LegacyHandler {
  const requests: RecordedRequest[] = [];
  let initialized = false;

  async function ask(res: ServerResponse, params: Params, rec: RecordedRequest): Promise<void> {
    const q = readQuery(params, generation);
    rec.read = q;
    if (!q.query) return json(res, 400, { error: 'query is required' });
    if (q.query.toLowerCase().includes('crash')) {
      res.writeHead(500, { 'content-type': 'text/html' });
      return void res.end('<html><body>Internal Server Error at /srv/nlweb</body></html>');
    }
    const steps = scriptFor(q, generation);
    if (isFalse(params.streaming)) {
      await playDelays(steps);
      return json(res, 200, nonStreamingReply(q, generation));
    }
    await playSse(res, steps);
  }

  /** Mid-2025 `/mcp`: `{"function_call":{"name":"ask","arguments":"<JSON string>"}}`. */
  async function functionCall(res: ServerResponse, url: URL, body: Params, rec: RecordedRequest): Promise<void> {
    const call = (body.function_call ?? {}) as Params;
    if (call.name !== 'ask') return json(res, 400, { type: 'function_response', status: 'error', error: `Unknown function: ${String(call.name ?? 'None')}` });
    const args = JSON.parse(typeof call.arguments === 'string' ? call.arguments : '{}') as Params;
    const params: Params = { ...Object.fromEntries(url.searchParams), query: args.query, site: args.site, query_id: args.query_id };
    const q = readQuery(params, generation);
    rec.read = q;
    const steps = scriptFor(q, generation);
    if ([true, 'true', 'True', '1', 1].includes(args.streaming as never)) {
      const wrapped: Step[] = [{ comment: 'keep-alive' }, ...steps];
      return playSse(res, wrapped, (frame) => ({ type: 'function_stream_event', content: frame }), { type: 'function_stream_end', status: 'success' });
    }
    await playDelays(steps);
    json(res, 200, { type: 'function_response', status: 'success', response: nonStreamingReply(q, generation) });
  }

  /** Late-2025 `/mcp`: JSON-RPC 2024-11-05, no sessions, every frame concatenated in one text item. */
  async function jsonRpc(res: ServerResponse, url: URL, body: Params, rec: RecordedRequest): Promise<void> {
    const id = body.id;
    const reply = (result: unknown) => json(res, 200, { jsonrpc: '2.0', id, result });
    const fail = (message: string) => json(res, 200, { jsonrpc: '2.0', id, error: { code: -32603, message } });
    const params = (body.params ?? {}) as Params;
    switch (body.method) {
      case 'initialize':
        return reply({ protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'nlweb-mcp-server', version: '1.0.0' } });
      case 'notifications/initialized':
        initialized = true;
        if (id === undefined) return void res.writeHead(202).end();
        return reply({ status: 'ok' });
      case 'tools/list':
        return reply({
          tools: [
            { name: 'ask_nlweb', description: 'Query NLWeb', inputSchema: { type: 'object', properties: { query: { type: 'string' }, site: { type: 'array', items: { type: 'string' } }, generate_mode: { type: 'string' } }, required: ['query'] } },
            { name: 'list_sites', description: 'List sites', inputSchema: { type: 'object', properties: {} } },
          ],
        });
      case 'tools/call': {
        if (!initialized) return fail('Server not initialized');
        const args = (params.arguments ?? {}) as Params;
        if (params.name === 'list_sites') return reply({ content: [{ type: 'text', text: JSON.stringify({ sites: SITES }, null, 2) }] });
        if (params.name !== 'ask_nlweb') return fail(`Unknown tool: ${String(params.name)}`);
        const site = Array.isArray(args.site) ? args.site[0] : args.site;
        const q = readQuery({ ...Object.fromEntries(url.searchParams), query: args.query, site, generate_mode: args.generate_mode }, generation);
        rec.read = q;
        const steps = scriptFor(q, generation);
        await playDelays(steps);
        const text = steps.flatMap((s) => ('frame' in s ? [pyDumps(s.frame)] : [])).join('');
        return reply({ content: [{ type: 'text', text }] });
      }
      default:
        return fail(`Method not found: ${String(body.method)}`);
    }
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://legacy.test');
      const query: Record<string, string[]> = {};
      for (const [k, v] of url.searchParams) (query[k] ??= []).push(v);
      const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query, headers: req.headers };
      requests.push(rec);
      const text = req.method === 'POST' ? await readBody(req) : '';
      let body: Params = {};
      try {
        body = text ? (JSON.parse(text) as Params) : {};
        rec.body = body;
      } catch {
        return json(res, 400, { error: 'bad json' });
      }
      // parse_qs gives lists; the handlers take the first value of each.
      const fromQuery: Params = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, k === 'site' ? v : v[0]]));
      if (url.pathname === '/ask') return ask(res, generation === 'A' ? fromQuery : { ...fromQuery, ...body }, rec);
      if (url.pathname === '/sites') return json(res, 200, { 'message-type': 'sites', sites: SITES });
      if (url.pathname === '/mcp' && req.method === 'POST') return generation === 'C' ? jsonRpc(res, url, body, rec) : functionCall(res, url, body, rec);
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.end();
    });
  };
  return {
    handler,
    requests,
    forgetInitialized: () => {
      initialized = false;
    },
  };
}

/** Starts a legacy server of one generation on a free loopback port. */
export async function startLegacyServer(generation: Generation): Promise<LegacyServer> {
  const { handler, requests, forgetInitialized } = createLegacyHandler(generation);
  const server = await listenRaw(handler);
  return { ...server, generation, requests, asks: () => requests.filter((r) => r.read !== undefined), forgetInitialized };
}
