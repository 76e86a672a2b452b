/**
 * Recorded exchanges with Microsoft's NLWeb server (the Python one sites run), and the key that
 * matches a later request to a recorded one. The interop check (`npm run interop:nlweb`) records
 * them through a proxy between nlgate and the real server; the replay server answers the suite
 * from them, byte for byte, so CI keeps the real shapes without Python.
 */
import { z } from 'zod';

export const Exchange = z.object({
  method: z.string(),
  /** Path without the query string. */
  path: z.string(),
  /** The query string's parameters; a repeated one as a list. */
  query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  /** The request's Accept header: Microsoft's NLWeb streams whenever it offers text/event-stream. */
  accept: z.string().optional(),
  /** The request body as text (JSON-RPC for /mcp), when there was one. */
  body: z.string().optional(),
  status: z.number().int(),
  contentType: z.string(),
  /** The response body exactly as the server sent it (SSE frames included). */
  response: z.string(),
});
export type Exchange = z.infer<typeof Exchange>;

export const Recording = z.object({
  /** Which server, at which commit, produced these answers. */
  producedBy: z.object({ repository: z.string(), commit: z.string(), note: z.string() }),
  exchanges: z.array(Exchange),
});
export type Recording = z.infer<typeof Recording>;

/** Parameters that choose the answer. Per-request ids (query_id, conversation_id) do not. */
const KEY_PARAMS = ['query', 'site', 'prev', 'generate_mode', 'mode', 'streaming', 'decontextualized_query'];

function rpcKey(body: string | undefined): string {
  if (!body) return '';
  try {
    const rpc = JSON.parse(body) as { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
    const args = rpc.params?.arguments ?? {};
    const picked = Object.fromEntries(KEY_PARAMS.filter((k) => k in args).map((k) => [k, args[k]]));
    return JSON.stringify([rpc.method, rpc.params?.name ?? null, picked]);
  } catch {
    return body;
  }
}

/**
 * The key a request is matched on: method, path, the answer-choosing parameters, the RPC call, and
 * whether it offered SSE (which changes the real server's answer).
 */
export function exchangeKey(e: Pick<Exchange, 'method' | 'path' | 'query' | 'body' | 'accept'>): string {
  const q = Object.fromEntries(KEY_PARAMS.filter((k) => k in e.query).map((k) => [k, e.query[k]]));
  const sse = (e.accept ?? '').includes('text/event-stream');
  return JSON.stringify([e.method, e.path, q, e.path.startsWith('/mcp') ? rpcKey(e.body) : '', sse]);
}

/** Query parameters of a URL, a repeated one as a list. */
export function queryOf(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(k);
    out[k] = all.length === 1 ? all[0]! : all;
  }
  return out;
}
