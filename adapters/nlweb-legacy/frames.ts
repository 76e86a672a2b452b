import type { AgentEvent } from '../../src/core/events.ts';
import type { ErrorCode } from '../../src/base/errors.ts';
import { legacyItemToResult, summaryItem } from './items.ts';

type Json = Record<string, unknown>;

/** The two wire dialects of the legacy server: mid-2025 (generations A and B) and late-2025 (C). */
export type Dialect = 'AB' | 'C';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (...values: unknown[]): string | undefined =>
  values.find((v): v is string => typeof v === 'string' && v.trim().length > 0);

/**
 * Frame types that carry nothing for a client (progress chatter, headers, echoes), dropped on
 * purpose. Microsoft's NLWeb server (commit 8612638) also streams `retrieval_count` (how many items
 * the vector search gave the ranker), and its configured `headers` as `license`, `data_retention`
 * and `ui_component` frames before every answer: texts about the deployment, not the answer.
 */
const SILENT_TYPES = new Set([
  'api_version', 'header', 'query', 'remember', 'asking_sites', 'site_querying', 'site_complete',
  'intermediate_message', 'tool_selection', 'query_analysis', 'status', 'conversation_created',
  'retrieval_count', 'license', 'data_retention', 'ui_component',
]);

/**
 * Message types read from under their own key in a non-streaming object, in this order (the
 * rewritten query first, for `start`). `summary` and `results` are read on their own; the
 * deployment headers (`license`, ...) and `tool_selection`, `asking_sites` are left, on purpose.
 */
const KEYED_TYPES = ['decontextualized_query', 'nlws', 'item_details', 'ask_user', 'no_results', 'error'] as const;

/** Maps the `status` of a legacy `error` frame to a gateway code; anything else is the upstream's fault. */
function errorCode(status: unknown): ErrorCode {
  const s = typeof status === 'string' ? Number(status) : status;
  if (s === 429) return 'RATE_LIMITED';
  if (s === 408 || s === 504) return 'TIMEOUT';
  if (s === 400 || s === 422) return 'INVALID_QUERY';
  return 'UPSTREAM_ERROR';
}

/**
 * Reads the `message_type` frames of every legacy generation (interop.md table) and turns each into
 * canonical events (events.ts) as it arrives. One reader per upstream reply; it remembers what a
 * later frame needs (the decontextualized query, a pending error after `end-nlweb-response`).
 *
 * The upstream's error texts are not passed on (they may hold stack traces); the reader logs them
 * through `onUpstreamMessage` and gives the client a fixed message.
 */
export class LegacyFrameReader {
  /**
   * The wire dialect the frames revealed: `C` (`begin-/end-nlweb-response`, `content` arrays) or
   * `AB` (`result_batch`, `complete`). Replies cannot tell A from B: they differ only in what they read.
   */
  dialect: Dialect | undefined;
  /** From a `decontextualized_query` frame: goes to `_meta` (start/complete). */
  decontextualizedQuery: string | undefined;
  /** True once a frame ended the answer (complete, end, ask_user, no_results, error). */
  done = false;
  /** Whether any frame at all arrived (an empty reply is an upstream failure, not an empty answer). */
  sawFrame = false;
  private awaitingError = false;
  /** Summary texts already passed on: NLWeb's generate mode sends its answer twice (see nlws). */
  private readonly summaries = new Set<string>();

  constructor(
    private readonly agent: string,
    private readonly onUpstreamMessage: (type: string, message: string) => void = () => undefined,
  ) {}

  /** Interprets one frame (an already-parsed JSON value); unknown frames yield nothing. */
  push(frame: unknown): AgentEvent[] {
    if (!isObject(frame)) return [];
    this.sawFrame = true;
    // The mid-2025 `/mcp` wraps each frame: {"type":"function_stream_event","content":{...}}.
    if (frame.type === 'function_stream_event') return isObject(frame.content) ? this.push(frame.content) : [];
    if (frame.type === 'function_stream_end') return frame.status === 'error' ? this.fail('UPSTREAM_ERROR', frame.error) : this.end();
    const type = frame.message_type ?? frame['message-type'];
    if (typeof type !== 'string') return this.bare(frame);
    switch (type) {
      case 'result_batch':
        this.dialect ??= 'AB';
        return this.items(frame.results);
      case 'result':
        return this.result(frame);
      case 'summary':
        return this.summary(text(frame.message, frame.content, frame.summary));
      case 'nlws':
        // NLWeb's generate mode sends the answer first with `items: []`, then again with its items.
        return [...this.summary(text(frame.answer)), ...this.items(frame.items)];
      case 'item_details':
        return this.details(frame);
      case 'decontextualized_query':
        this.decontextualizedQuery = text(frame.decontextualized_query, frame.query) ?? this.decontextualizedQuery;
        return [];
      case 'ask_user': {
        this.done = true;
        const question = text(frame.message, frame.question, frame.content) ?? 'The agent needs more information.';
        return [{ type: 'elicitation', elicitation: { text: question } }];
      }
      case 'no_results':
        this.done = true;
        return [{ type: 'error', code: 'NO_RESULTS', message: 'No results matched the query' }];
      case 'error':
        return this.fail(errorCode(frame.status), frame.error ?? frame.message ?? frame.content);
      case 'complete':
        this.dialect ??= 'AB';
        return this.end();
      case 'begin-nlweb-response':
        this.dialect = 'C';
        return [];
      case 'end-nlweb-response':
        this.dialect = 'C';
        // An errored response ends with `"error": true` and then sends its `error` frame.
        if (frame.error === true) {
          this.awaitingError = true;
          return [];
        }
        return this.end();
      default:
        if (!SILENT_TYPES.has(type)) this.onUpstreamMessage('unknown', type);
        return [];
    }
  }

  /** At EOF: an `end-nlweb-response` with `error: true` whose error frame never came still failed. */
  finish(): AgentEvent[] {
    if (this.awaitingError && !this.done) return this.fail('UPSTREAM_ERROR', undefined);
    this.done = true;
    return [];
  }

  /** `result` (C): `content` is a list of items, or a summary's text when `@type` is Summary. */
  private result(frame: Json): AgentEvent[] {
    this.dialect = 'C';
    if (typeof frame.content === 'string') return this.summary(frame.content);
    if (Array.isArray(frame.content)) return this.items(frame.content);
    if (isObject(frame.content)) return this.items([frame.content]);
    return this.items(frame.results);
  }

  /**
   * A frame with no `message_type`: the non-streaming object (`results`, `summary.message`). Microsoft's
   * NLWeb builds it from its stream: `results` gathers the batches, every other message sits under
   * its `message_type` without that field (the last of a type wins), its headers as `{message}`.
   */
  private bare(frame: Json): AgentEvent[] {
    const events: AgentEvent[] = [];
    for (const key of KEYED_TYPES) {
      const value = frame[key];
      if (isObject(value) && !this.done) events.push(...this.push({ ...value, message_type: key }));
    }
    const summary = isObject(frame.summary) ? text(frame.summary.message) : text(frame.summary);
    return [...events, ...this.summary(summary), ...this.items(frame.results)];
  }

  private items(list: unknown): AgentEvent[] {
    if (!Array.isArray(list)) return [];
    const events: AgentEvent[] = [];
    for (const raw of list) {
      if (isObject(raw) && (raw['@type'] === 'Summary' || raw['@type'] === 'SearchSummary') && !raw.url) {
        events.push(...this.summary(text(raw.text, raw.content, raw.message)));
        continue;
      }
      const item = legacyItemToResult(raw);
      if (item) events.push({ type: 'result', item });
    }
    return events;
  }

  private summary(value: string | undefined): AgentEvent[] {
    if (value === undefined || this.summaries.has(value)) return [];
    this.summaries.add(value);
    return [{ type: 'result', item: summaryItem(value) }];
  }

  /**
   * `item_details` (NLWeb's details tool: "ingredients of X"): one item with the details the user
   * asked for in `details` (a text, or an object when the model answered with one). The details
   * are the answer, so they become the item's `description`, where the ranker's explanation goes.
   */
  private details(frame: Json): AgentEvent[] {
    const details = typeof frame.details === 'string' ? frame.details : isObject(frame.details) ? JSON.stringify(frame.details) : undefined;
    const item = legacyItemToResult({ ...frame, description: text(details, frame.explanation, frame.description) });
    return item ? [{ type: 'result', item }] : [];
  }

  private fail(code: ErrorCode, upstreamMessage: unknown): AgentEvent[] {
    this.done = true;
    this.awaitingError = false;
    if (typeof upstreamMessage === 'string') this.onUpstreamMessage('error', upstreamMessage);
    const message = code === 'UPSTREAM_ERROR' ? `Agent "${this.agent}" reported an error` : `Agent "${this.agent}" refused the query`;
    if (code === 'RATE_LIMITED') return [{ type: 'error', code, message: `Agent "${this.agent}" is rate limiting the gateway` }];
    if (code === 'TIMEOUT') return [{ type: 'error', code, message: `Agent "${this.agent}" timed out` }];
    return [{ type: 'error', code, message }];
  }

  private end(): AgentEvent[] {
    if (this.awaitingError) return [];
    this.done = true;
    return [];
  }
}
