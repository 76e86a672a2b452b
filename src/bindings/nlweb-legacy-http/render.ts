import { ERROR_TABLE, isErrorCode } from '../../base/errors.ts';
import { isSummaryItem, renderResponseText } from '../../core/render-text.ts';
import { NLWEB_VERSION, isAnswer, isElicitation, isFailure, type CanonicalResponse, type Elicitation, type ResultItem } from '../../protocol/nlweb/index.ts';

/** One late-2025 message (interop.md): a JSON object with a `message_type`. */
export type LegacyFrame = Record<string, unknown>;

/** What every frame of one answer shares: the conversation, and the client's `query_id` echoed back. */
export interface FrameContext {
  conversationId: string;
  queryId?: string;
  /** The site named in items that carry none (the agent's name). */
  site: string;
}

const ids = (fc: FrameContext): LegacyFrame => ({ conversation_id: fc.conversationId, ...(fc.queryId ? { query_id: fc.queryId } : {}) });

/**
 * A v0.55 item as the older front ends read it (`url, name, site, siteUrl, score, description,
 * schema_object`, interop.md), wrapped as the late-2025 `"@type":"Item"`. `schema_object` is the whole
 * typed item as an object: the reference front end reads it as an object (or an array of them).
 */
export function legacyItem(item: ResultItem, fc: FrameContext): LegacyFrame {
  const url = item.url ?? item['@id'];
  const title = typeof item.title === 'string' ? item.title : undefined;
  const site = item.site ?? fc.site;
  return {
    '@type': 'Item',
    ...(url ? { url } : {}),
    name: item.name ?? title ?? item.text ?? url ?? 'Untitled',
    site,
    siteUrl: site,
    ...(item.score !== undefined ? { score: item.score } : {}),
    ...(item.description ? { description: item.description } : {}),
    schema_object: item,
  };
}

/** A result as its late-2025 frame: items in `content`, a summary as `"@type":"Summary"` with text content. */
export function resultFrame(item: ResultItem, fc: FrameContext): LegacyFrame {
  if (isSummaryItem(item)) return { message_type: 'result', '@type': 'Summary', content: item.text, ...ids(fc) };
  return { message_type: 'result', content: [legacyItem(item, fc)], ...ids(fc) };
}

/** The late-2025 `begin-nlweb-response` that opens every streamed answer (interop.md). */
export function beginFrame(query: string, fc: FrameContext): LegacyFrame {
  return { message_type: 'begin-nlweb-response', query, ...ids(fc), timestamp: Date.now() };
}

/** The late-2025 `end-nlweb-response`; `error: true` when an `error` frame follows (interop.md). */
export function endFrame(fc: FrameContext, error: boolean): LegacyFrame {
  return { message_type: 'end-nlweb-response', ...ids(fc), timestamp: Date.now(), ...(error ? { error: true } : {}) };
}

/** The query as the agent understood it in context (legacy `decontextualized_query` message). */
export function decontextualizedFrame(decontextualized: string, query: string, fc: FrameContext): LegacyFrame {
  return { message_type: 'decontextualized_query', decontextualized_query: decontextualized, original_query: query, ...ids(fc) };
}

/** An elicitation as `ask_user`: one message, the questions (and their options) written out. */
export function askUserFrame(elicitation: Elicitation, fc: FrameContext): LegacyFrame {
  const message = renderResponseText({ _meta: { response_type: 'elicitation', version: NLWEB_VERSION }, elicitation });
  return { message_type: 'ask_user', message, ...ids(fc) };
}

/** A failure: `no_results` for NO_RESULTS, else an `error` frame with the v0.55 code and an HTTP-like status. */
export function failureFrame(code: string, message: string, fc: FrameContext): LegacyFrame {
  if (code === 'NO_RESULTS') return { message_type: 'no_results', message, ...ids(fc) };
  const nlweb = isErrorCode(code) ? ERROR_TABLE[code].nlweb : code;
  const status = isErrorCode(code) ? ERROR_TABLE[code].http : 500;
  return { message_type: 'error', error: message, code: nlweb, status: status === 200 ? 500 : status, ...ids(fc) };
}

/**
 * The non-streaming reply (`streaming=false`): the object shape of the older REST API, `results` plus
 * each other message keyed by its `message_type` (`summary`, `ask_user`, `no_results`, `error`).
 */
export function objectReply(response: CanonicalResponse, query: string, fc: FrameContext): LegacyFrame {
  const reply: LegacyFrame = { ...ids(fc), query, results: [] as LegacyFrame[] };
  const meta = response._meta as Record<string, unknown>;
  if (typeof meta.decontextualized_query === 'string') reply.decontextualized_query = decontextualizedFrame(meta.decontextualized_query, query, fc);
  if (isAnswer(response)) {
    const summary = response.results.find(isSummaryItem);
    reply.results = response.results.filter((r) => !isSummaryItem(r)).map((r) => legacyItem(r, fc));
    if (summary) reply.summary = { message_type: 'summary', message: summary.text };
  } else if (isElicitation(response)) {
    reply.ask_user = askUserFrame(response.elicitation, fc);
  } else if (isFailure(response)) {
    const frame = failureFrame(response.error.code, response.error.message ?? response.error.code, fc);
    reply[String(frame.message_type)] = frame;
  } else {
    // A promise: only if the core answers one despite allowPromise: false; old clients cannot await.
    reply.error = failureFrame('TIMEOUT', 'The agent did not answer in time', fc);
  }
  return reply;
}
