import { createHash } from 'node:crypto';
import type { CallContext } from '../../src/core/agent.ts';
import { parseModes, querySites, type AskRequest } from '../../src/protocol/nlweb/index.ts';
import type { Dialect } from './frames.ts';

/** The parameters every legacy generation understands (specs/nlweb-legacy-rest-api.md, interop.md). */
export interface LegacyParams {
  query: string;
  site: string[];
  prev: string[];
  decontextualized_query?: string;
  streaming: boolean;
  /** `list`, `summarize` or `generate`: sent as both `mode` and `generate_mode` (interop.md). */
  mode: string;
  query_id: string;
  conversation_id?: string;
  max_results?: number;
  min_score?: number;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim().length > 0 ? v : undefined);

/** v0.55 3.3.2 modes → the legacy `generate_mode` (the strongest one asked for wins). */
export function legacyMode(mode: string | undefined): string {
  const modes = parseModes(mode);
  if (modes.includes('generate')) return 'generate';
  if (modes.includes('summarize')) return 'summarize';
  return 'list';
}

/**
 * Previous queries (v0.55 3.2 `prev`): these servers keep no conversation, so the gateway's
 * (ctx.conversation.prev) and the client's (`context.prev`) are merged, oldest first, a repeated
 * query kept where it was last asked, and only the newest `max` are kept.
 */
export function mergePrev(request: AskRequest, ctx: CallContext, max: number): string[] {
  const all = [...(ctx.conversation?.prev ?? []), ...(request.context?.prev ?? [])];
  const seen = new Set<string>();
  const newestFirst: string[] = [];
  // Walk from the newest so a repeated query counts where it was last asked.
  for (let i = all.length - 1; i >= 0 && newestFirst.length < max; i--) {
    const t = all[i]!.trim();
    if (t.length > 0 && !seen.has(t)) seen.add(t), newestFirst.push(t);
  }
  return newestFirst.reverse();
}

/**
 * The conversation id the upstream sees: a digest of the gateway's, stable for the conversation but
 * useless as a handle (the gateway's id is a bearer credential for its conversation).
 */
export function upstreamConversationId(id: string): string {
  return createHash('sha256').update(`nlgate-legacy:${id}`).digest('hex').slice(0, 32);
}

/** Maps a v0.55 ask (3.1-3.4) and its call context to the legacy request parameters. */
export function buildLegacyParams(request: AskRequest, ctx: CallContext, opts: { streaming: boolean; maxPrev: number }): LegacyParams {
  const context = request.context as Record<string, unknown> | undefined;
  const query = request.query as Record<string, unknown>;
  const decontextualized = text(context?.decontextualized_query) ?? text(query.decontextualized_query);
  const params: LegacyParams = {
    query: request.query.text,
    site: querySites(request.query),
    prev: mergePrev(request, ctx, opts.maxPrev),
    streaming: opts.streaming,
    // `prefer.generate_mode: "generate"`: an old client's generate, passed on (nlweb-legacy-http).
    mode: request.prefer?.generate_mode === 'generate' ? 'generate' : legacyMode(request.prefer?.mode),
    query_id: ctx.requestId,
  };
  if (decontextualized) params.decontextualized_query = decontextualized;
  if (ctx.conversation) params.conversation_id = upstreamConversationId(ctx.conversation.id);
  const max = request.query.max_results ?? request.query.num_results;
  if (max !== undefined) params.max_results = max;
  if (request.query.min_score !== undefined) params.min_score = request.query.min_score;
  return params;
}

/**
 * `prev` as one string: comma-separated for the mid-2025 servers (they split on commas, and the
 * oldest read nothing else); a JSON array for late-2025 ones, which try JSON first and so keep
 * queries that contain commas intact.
 */
export function encodePrev(prev: string[], dialect: Dialect | undefined): string {
  return dialect === 'C' ? JSON.stringify(prev) : prev.join(',');
}

/** The query string every generation reads (GET `/ask`; also on `/mcp`, whose handlers merge it in). */
export function toSearchParams(p: LegacyParams, dialect: Dialect | undefined): URLSearchParams {
  const s = new URLSearchParams();
  s.set('query', p.query);
  for (const site of p.site) s.append('site', site);
  if (p.prev.length > 0) s.set('prev', encodePrev(p.prev, dialect));
  if (p.decontextualized_query) s.set('decontextualized_query', p.decontextualized_query);
  s.set('streaming', String(p.streaming));
  s.set('generate_mode', p.mode);
  s.set('mode', p.mode);
  s.set('query_id', p.query_id);
  if (p.conversation_id) s.set('conversation_id', p.conversation_id);
  if (p.max_results !== undefined) s.set('max_results', String(p.max_results));
  if (p.min_score !== undefined) s.set('min_score', String(p.min_score));
  return s;
}

/**
 * The POST JSON body (generations B and C). `streaming` stays a string: the mid-2025 parser calls
 * `.lower()` on it. `prev` is a real array: a JSON body needs no comma encoding.
 */
export function toJsonBody(p: LegacyParams): Record<string, unknown> {
  const body: Record<string, unknown> = {
    query: p.query,
    prev: p.prev,
    streaming: String(p.streaming),
    generate_mode: p.mode,
    mode: p.mode,
    query_id: p.query_id,
  };
  if (p.site.length === 1) body.site = p.site[0];
  else if (p.site.length > 1) body.site = p.site;
  if (p.decontextualized_query) body.decontextualized_query = p.decontextualized_query;
  if (p.conversation_id) body.conversation_id = p.conversation_id;
  if (p.max_results !== undefined) body.max_results = p.max_results;
  if (p.min_score !== undefined) body.min_score = p.min_score;
  return body;
}
