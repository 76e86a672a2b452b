import { z } from 'zod';
import { GatewayError, describeIssues } from '../../base/errors.ts';
import { inConversation, type AskRequest } from '../../protocol/nlweb/index.ts';

/** Most previous queries taken from one URL (the core keeps its own bounded history too). */
const MAX_PREV = 50;

/**
 * `prev` as the older servers read it (specs/nlweb-legacy-rest-api.md: "comma separated list of
 * previous queries"; later clients send a JSON array string). Each `prev=` value is decoded; repeats add up.
 */
export function decodePrev(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    const trimmed = value.trim();
    if (trimmed.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (Array.isArray(parsed)) {
          out.push(...parsed.filter((p): p is string => typeof p === 'string'));
          continue;
        }
      } catch {
        /* not JSON: fall back to commas, as the old servers did */
      }
    }
    out.push(...trimmed.replace(/^\[|\]$/g, '').split(','));
  }
  return out.map((p) => p.trim()).filter((p) => p.length > 0).slice(-MAX_PREV);
}

const one = z.array(z.string()).optional().transform((v) => v?.[0]);
const optionalNumber = one.transform((v) => (v === undefined || v.trim() === '' ? undefined : Number(v))).pipe(z.number().optional());

/**
 * The query string of a legacy `GET /ask` (specs/nlweb-legacy-rest-api.md, interop.md): `query`
 * required; `site`, `prev`, `generate_mode`/`mode`, `streaming`, `decontextualized_query`,
 * `query_id`, `conversation_id`, `max_results`, `num_results`, `start_num`, `min_score` optional. Values arrive as lists
 * (`c.req.queries()`); the first counts except for `site` and `prev`.
 */
export const LegacyAskParamsSchema = z.object({
  query: z.array(z.string()).optional().transform((v) => v?.[0]?.trim() ?? '').pipe(z.string().min(1, 'the query parameter is required')),
  site: z.array(z.string()).default([]).transform((v) => v.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s.length > 0 && s !== 'all')),
  prev: z.array(z.string()).default([]).transform(decodePrev),
  generate_mode: one,
  mode: one,
  streaming: one,
  decontextualized_query: one,
  query_id: one.pipe(z.string().max(200, 'query_id is longer than 200 characters').optional()),
  conversation_id: one,
  max_results: optionalNumber,
  num_results: optionalNumber,
  min_score: optionalNumber,
  start_num: optionalNumber,
});
export type LegacyAskParams = z.infer<typeof LegacyAskParamsSchema>;

/** Validates a legacy query string; a problem is INVALID_QUERY naming the parameter. */
export function parseLegacyAsk(queries: Record<string, string[]>): LegacyAskParams {
  const parsed = LegacyAskParamsSchema.safeParse(queries);
  if (!parsed.success) throw new GatewayError('INVALID_QUERY', `Invalid legacy ask: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** `streaming` defaults to true; `0` or `false` turn it off (the legacy REST API). */
export function wantsLegacyStream(params: LegacyAskParams): boolean {
  return !['0', 'false', 'no', 'off'].includes((params.streaming ?? 'true').trim().toLowerCase());
}

/**
 * The legacy `generate_mode` (or `mode`) as v0.55 3.3.2 modes: `summarize` adds a summary; `generate`
 * (the old RAG answer) has no v0.55 counterpart and is answered as a summary too.
 */
export function toV055Mode(params: LegacyAskParams): string {
  const mode = (params.generate_mode ?? params.mode ?? 'list').trim().toLowerCase();
  return mode === 'summarize' || mode === 'generate' ? 'list, summarize' : 'list';
}

/** Whether the old client asked for the RAG answer (`generate_mode=generate`, or `mode=generate`). */
export function wantsGenerate(params: LegacyAskParams): boolean {
  return (params.generate_mode ?? params.mode ?? '').trim().toLowerCase() === 'generate';
}

/** Maps a legacy ask to the canonical v0.55 request (3.1-3.4). */
export function toAskRequest(params: LegacyAskParams, streaming: boolean): AskRequest {
  const query: AskRequest['query'] = { text: params.query };
  if (params.site.length > 0) query.site = params.site.length === 1 ? params.site[0]! : params.site;
  // max_results is the page size, num_results the retrieval depth (interop.md), as on POST /ask.
  const count = (n: number | undefined): n is number => n !== undefined && Number.isInteger(n) && n > 0;
  if (count(params.max_results)) query.max_results = params.max_results;
  if (count(params.num_results)) query.num_results = params.num_results;
  if (params.min_score !== undefined && Number.isFinite(params.min_score)) query.min_score = params.min_score;
  const context: Record<string, unknown> = {};
  if (params.prev.length > 0) context.prev = params.prev;
  if (params.decontextualized_query?.trim()) context.decontextualized_query = params.decontextualized_query.trim();
  const prefer: AskRequest['prefer'] = { streaming, mode: toV055Mode(params) };
  // v0.55 has no generate mode, so every agent answers it with a summary; an agent that speaks the
  // legacy API itself (nlweb-legacy) reads this extension and asks its server for the real thing.
  if (wantsGenerate(params)) prefer.generate_mode = 'generate';
  const request: AskRequest = { query, prefer };
  if (params.start_num !== undefined && Number.isInteger(params.start_num) && params.start_num > 0) request.meta = { start_num: params.start_num };
  if (Object.keys(context).length > 0) request.context = context;
  // A late-2025 client sends back the conversation_id it was given: the gateway's conversation.
  return params.conversation_id ? inConversation(request, params.conversation_id) : request;
}
