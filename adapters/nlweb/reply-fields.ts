/**
 * Field-level readers for upstream NLWeb replies (v0.55 section 4, v0.54 section 4). Each one
 * accepts what real upstreams send and returns a value that validates against the gateway's own
 * schemas, or nothing: accept loosely, emit strictly (interop.md).
 */
import type { AgentEvent } from '../../src/core/events.ts';
import {
  ActionSchema,
  ElicitationSchema,
  QuestionSchema,
  ResultItemSchema,
  type Elicitation,
  type PromiseInfo,
  type ResultItem,
} from '../../src/protocol/nlweb/index.ts';
import { plainResultItem } from './plain-item.ts';

export type JsonObject = Record<string, unknown>;
type ErrorEvent = Extract<AgentEvent, { type: 'error' }>;

/** Upstream text that reaches clients is cut to this length. */
const MAX_MESSAGE_CHARS = 500;
/** The response types of spec 4, lower case (v0.54 servers send `Answer`, `Failure`, ...). */
const RESPONSE_TYPES = new Set(['answer', 'elicitation', 'promise', 'failure']);

/** True for a JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The reply's `_meta` (4), normalised: `response_type` lower case, `version` from the v0.54
 * `api_version`, and no `streaming` flag (that describes the upstream leg, not the answer).
 * v0.54 also allows `meta` instead of `_meta`, and its promise example puts `response_type` at the top.
 */
export function replyMeta(reply: JsonObject): JsonObject | undefined {
  const raw = isObject(reply._meta) ? reply._meta : isObject(reply.meta) ? reply.meta : undefined;
  if (!raw && typeof reply.response_type !== 'string') return undefined;
  const meta: JsonObject = { ...(raw ?? {}) };
  if (meta.response_type === undefined && typeof reply.response_type === 'string') meta.response_type = reply.response_type;
  if (typeof meta.response_type === 'string') meta.response_type = meta.response_type.toLowerCase();
  if (meta.version === undefined && meta.api_version !== undefined) meta.version = meta.api_version;
  if (typeof meta.version === 'number') meta.version = String(meta.version);
  else if (typeof meta.version !== 'string') delete meta.version;
  delete meta.api_version;
  delete meta.streaming;
  if (meta.session_context !== undefined && !isObject(meta.session_context)) delete meta.session_context;
  return meta;
}

/** The reply's response type (4), when it names one of the four. */
export function responseType(meta: JsonObject | undefined): string | undefined {
  const type = meta?.response_type;
  return typeof type === 'string' && RESPONSE_TYPES.has(type) ? type : undefined;
}

/**
 * One result item (4.1.1). Fields that break the item schema are dropped (a numeric-string
 * `score` is read as a number; invalid actions are left out); a non-object is no item at all.
 */
export function toResultItem(raw: unknown): ResultItem | undefined {
  if (!isObject(raw)) return undefined;
  const plain = plainResultItem(raw);
  if (plain) return plain;
  const first = ResultItemSchema.safeParse(raw);
  if (first.success) return first.data;
  const copy: JsonObject = { ...raw };
  if (typeof copy.score === 'string' && copy.score.trim() !== '' && Number.isFinite(Number(copy.score))) {
    copy.score = Number(copy.score);
  }
  for (const issue of first.error.issues) {
    const key = issue.path[0];
    if (typeof key === 'string' && key !== 'score') delete copy[key];
  }
  if (Array.isArray(raw.actions)) {
    const actions = raw.actions.flatMap((a) => {
      const parsed = ActionSchema.safeParse(a);
      return parsed.success ? [parsed.data] : [];
    });
    if (actions.length > 0) copy.actions = actions;
  }
  const second = ResultItemSchema.safeParse(copy);
  if (second.success) return second.data;
  delete copy.score;
  const third = ResultItemSchema.safeParse(copy);
  return third.success ? third.data : undefined;
}

/** The items of a list (`results`, `structuredData`); anything else yields none. */
export function toResultItems(raw: unknown): ResultItem[] {
  if (!Array.isArray(raw)) return isObject(raw) ? [toResultItem(raw)].filter((i) => i !== undefined) : [];
  return raw.map(toResultItem).filter((i): i is ResultItem => i !== undefined);
}

/**
 * The text of a ChatGPT App `content` array (4.1.1) as one SearchSummary item: that is how a
 * summary travels in the Conversational Search structure the gateway keeps.
 */
export function summaryFromContent(raw: unknown): ResultItem | undefined {
  const parts = typeof raw === 'string'
    ? [raw]
    : Array.isArray(raw)
      ? raw.flatMap((c) => (isObject(c) && (c.type === undefined || c.type === 'text') && typeof c.text === 'string' ? [c.text] : []))
      : [];
  const text = parts.map((p) => p.trim()).filter((p) => p.length > 0).join('\n\n');
  return text ? { '@type': 'SearchSummary', text } : undefined;
}

/** An elicitation (4.1.3); invalid questions are dropped rather than failing the whole answer. */
export function toElicitation(raw: unknown): Elicitation {
  const parsed = ElicitationSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  if (typeof raw === 'string') return { text: raw };
  const source = isObject(raw) ? raw : {};
  const out: Elicitation = {};
  if (typeof source.text === 'string') out.text = source.text;
  if (Array.isArray(source.questions)) {
    out.questions = source.questions.flatMap((q) => {
      const question = QuestionSchema.safeParse(q);
      return question.success ? [question.data] : [];
    });
  }
  return out;
}

/** A promise (4.1.2): a usable token is required; optional fields that do not fit are dropped. */
export function toPromise(raw: unknown): PromiseInfo | undefined {
  if (!isObject(raw)) return undefined;
  const token = typeof raw.token === 'number' ? String(raw.token) : raw.token;
  if (typeof token !== 'string' || token.length === 0) return undefined;
  const out: PromiseInfo = { token };
  const eta = raw.estimated_time;
  if (typeof eta === 'number' && eta >= 0 && Number.isSafeInteger(Math.round(eta))) out.estimated_time = Math.round(eta);
  if (typeof raw.message === 'string') out.message = clip(raw.message);
  const progress = raw.progress;
  if (typeof progress === 'number' && progress >= 0 && progress <= 1) out.progress = progress;
  return out;
}

/**
 * A failure (4.1.4) as a terminal error event. Codes are kept (extensible) when they look like
 * codes; anything else becomes INTERNAL_ERROR. A missing message gets a plain one.
 */
export function toFailureEvent(raw: unknown, agent: string): ErrorEvent {
  const source = isObject(raw) ? raw : {};
  const rawCode = typeof source.code === 'string' ? source.code.trim().toUpperCase() : '';
  const code = /^[A-Z][A-Z0-9_]{0,63}$/.test(rawCode) ? rawCode : 'INTERNAL_ERROR';
  const text = typeof raw === 'string' ? raw : typeof source.message === 'string' ? source.message : '';
  const message = text.trim() ? clip(text.trim()) : `Agent "${agent}" reported ${code}`;
  return { type: 'error', code, message, recoverable: false };
}

/**
 * The events one reply object carries, by the fields present: results, `structuredData` with its
 * `content` summary, an elicitation, a promise, an error. Shared by JSON replies and v0.54 stream frames.
 */
export function contentEvents(reply: JsonObject, agent: string): AgentEvent[] {
  const events: AgentEvent[] = [];
  const summary = summaryFromContent(reply.content);
  if (summary) events.push({ type: 'result', item: summary });
  for (const item of toResultItems(reply.results)) events.push({ type: 'result', item });
  for (const item of toResultItems(reply.structuredData)) events.push({ type: 'result', item });
  if (reply.elicitation !== undefined && reply.elicitation !== null) {
    events.push({ type: 'elicitation', elicitation: toElicitation(reply.elicitation) });
  }
  if (reply.promise !== undefined && reply.promise !== null) {
    const promise = toPromise(reply.promise);
    events.push(
      promise
        ? { type: 'promise', promise }
        : { type: 'error', code: 'INTERNAL_ERROR', message: `Agent "${agent}" answered with a promise that has no token`, recoverable: false },
    );
  }
  if (reply.error !== undefined && reply.error !== null && reply.error !== false) events.push(toFailureEvent(reply.error, agent));
  return events;
}

/** True when a reply object has any field an NLWeb reply is made of. */
export function looksLikeReply(reply: JsonObject): boolean {
  return ['_meta', 'meta', 'response_type', 'results', 'structuredData', 'content', 'elicitation', 'promise', 'error'].some(
    (key) => reply[key] !== undefined,
  );
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}
