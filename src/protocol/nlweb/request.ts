import { z } from 'zod';

/** NLWeb protocol version the gateway speaks on output (spec v0.55, 3.4). */
export const NLWEB_VERSION = '0.55';

/** The two response formats defined by v0.55 3.3.1; `conv_search` is the v0.54 alias. */
export const RESPONSE_FORMATS = ['conversational_search', 'chatgpt_app'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

/** The modes defined by v0.55 3.3.2. */
export const MODES = ['list', 'summarize'] as const;
export type Mode = (typeof MODES)[number];

/** 3.1 Query: `text` is required; any number of domain filters ride along. `site` may be an array (interop). */
export const QuerySchema = z
  .looseObject({
    text: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty'),
    site: z.union([z.string(), z.array(z.string())]).optional(),
    itemType: z.string().optional(),
    num_results: z.coerce.number().int().positive().optional(),
    max_results: z.coerce.number().int().positive().optional(),
    min_score: z.coerce.number().optional(),
  });
export type Query = z.infer<typeof QuerySchema>;

/** 3.2 Context: ConversationalContext by default; custom `@type`s keep their own attributes. */
export const ContextSchema = z.looseObject({
  '@type': z.string().optional(),
  '@context': z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  prev: z.array(z.string()).optional(),
  text: z.string().optional(),
  memory: z.string().optional(),
});
export type Context = z.infer<typeof ContextSchema>;

/** 3.3 Prefer: content negotiation for the response. */
export const PreferSchema = z.looseObject({
  streaming: z.boolean().optional(),
  response_format: z.string().optional(),
  mode: z.string().optional(),
  'accept-language': z.string().optional(),
  'user-agent': z.string().optional(),
});
export type Prefer = z.infer<typeof PreferSchema>;

/** 3.4 Meta: `version` (or the v0.54 `api_version`), `session_context`, `user`, `remember`. */
export const RequestMetaSchema = z.looseObject({
  version: z.string().optional(),
  api_version: z.string().optional(),
  session_context: z.record(z.string(), z.unknown()).optional(),
  user: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  remember: z.boolean().optional(),
  start_num: z.coerce.number().int().nonnegative().optional(),
});
export type RequestMeta = z.infer<typeof RequestMetaSchema>;

/** 3. Ask request: `query` required; `context`, `prefer`, `meta` optional. */
export const AskRequestSchema = z.looseObject({
  query: QuerySchema,
  context: ContextSchema.optional(),
  prefer: PreferSchema.optional(),
  meta: RequestMetaSchema.optional(),
});
export type AskRequest = z.infer<typeof AskRequestSchema>;

/** 4.2 Await: `promise_token` and `action` (`checkin` or `cancel`); optional long-poll `wait_ms` (gateway extension). */
export const AwaitRequestSchema = z.looseObject({
  promise_token: z.string().min(1, 'promise_token must not be empty'),
  action: z.enum(['checkin', 'cancel'], { error: 'action must be "checkin" or "cancel"' }),
  meta: RequestMetaSchema.optional(),
  wait_ms: z.number().int().nonnegative().optional(),
});
export type AwaitRequest = z.infer<typeof AwaitRequestSchema>;

/** Normalises `response_format` (v0.54 `conv_search` → `conversational_search`); returns the raw value when unknown. */
export function normalizeResponseFormat(value: string | undefined): string {
  if (value === undefined || value === '' || value === 'conv_search') return 'conversational_search';
  return value;
}

/** Splits a 3.3.2 mode list (`"list, summarize"` or `"list,summarize"`) into its values. */
export function parseModes(value: string | undefined): string[] {
  if (!value) return ['list'];
  return value.split(',').map((m) => m.trim()).filter((m) => m.length > 0);
}

/** The `query.site` value that means every site (v0.54 clients and the older REST API send it). */
export const ALL_SITES = 'all';

/**
 * The sites a query names, as a list (`query.site` may be a string or an array on the wire).
 * `"all"` names no site in particular: an empty list, so every site is searched.
 */
export function querySites(query: Query): string[] {
  if (query.site === undefined) return [];
  return (Array.isArray(query.site) ? query.site : [query.site]).filter((s) => s.length > 0 && s.trim().toLowerCase() !== ALL_SITES);
}

/**
 * The number of ranked results a client wants back (interop.md): `max_results`; a client that sends
 * only `num_results` (older v0.55 clients) means it as the count.
 */
export function requestedResultCount(query: Query): number | undefined {
  return query.max_results ?? query.num_results;
}

/**
 * The retrieval depth (interop.md, v0.54 client): with both fields, `num_results` is how many ranked
 * hits exist to page through (`max_results` at a time); alone it is the count, so no depth applies.
 */
export function retrievalDepth(query: Query): number | undefined {
  return query.max_results !== undefined ? query.num_results : undefined;
}

/** The request continuing conversation `conversationId` (3.4 `meta.session_context.conversation_id`). */
export function inConversation(request: AskRequest, conversationId: string): AskRequest {
  const meta = request.meta ?? {};
  return { ...request, meta: { ...meta, session_context: { ...meta.session_context, conversation_id: conversationId } } };
}
