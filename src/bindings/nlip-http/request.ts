import { inConversation, type AskRequest } from '../../protocol/nlweb/index.ts';
import {
  ATTACHMENTS_KEY,
  authTokens,
  binaryParts,
  jsonParts,
  messageLocations,
  messageText,
  type MediaAttachment,
  type NlipMessage,
} from '../../protocol/nlip/index.ts';
import { toAttachment } from '../../protocol/nlip/index.ts';

/**
 * An NLIP message as the canonical ask (design.md mapping table): the text parts are `query.text`
 * (a message without text may carry its question as structured `{"query": "..."}` or NLWeb's
 * `{"query": {"text": ..., filters}}`); `location` parts the `location` filter; `structured`/`json` parts labelled `context` the context,
 * other JSON objects filters; `binary` parts (and uploads they reference) attachments, for agents
 * that take them. What cannot go to the agent is named in `notes`, for the reply.
 */

/** Labels whose JSON objects are context; all other JSON objects are query filters. */
const CONTEXT_LABEL = 'context';
/** JSON parts with these labels are not for the agent (the gateway's own reply parts, echoed back). */
const IGNORED_LABELS = new Set(['elicitation', 'promise', 'upload']);

/** The ask, plus what the reply should say about parts that did not reach the agent. */
export interface NlipAsk {
  request: AskRequest;
  /** The question, empty when the message had no text. */
  text: string;
  attachments: MediaAttachment[];
  notes: string[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A structured question (NLWeb 3.1 in a `structured`/`json` part): `{"query": "..."}` or
 * `{"query": {"text": "...", ...filters}}`, optionally with NLWeb's `context`. The rest of the
 * object (filters) stays with the part.
 */
function structuredQuestion(value: Record<string, unknown>): { text?: string; filters: Record<string, unknown>; context?: Record<string, unknown> } {
  const { query, context, ...rest } = value;
  const withContext = isObject(context) ? { context } : {};
  if (typeof query === 'string') return { text: query.trim(), filters: rest, ...withContext };
  if (isObject(query)) {
    const { text, ...queryFilters } = query;
    return { ...(typeof text === 'string' ? { text: text.trim() } : {}), filters: { ...rest, ...queryFilters }, ...withContext };
  }
  return { filters: value };
}

/** 5.3 Reads the message into an ask; `uploads` are attachments already loaded from upload references. */
export function readAsk(msg: NlipMessage, opts: { conversationId?: string; uploads: MediaAttachment[] }): NlipAsk {
  let text = messageText(msg);
  const notes: string[] = [];
  const filters: Record<string, unknown> = {};
  const context: Record<string, unknown> = {};
  for (const { label, value } of jsonParts(msg)) {
    if (label !== undefined && IGNORED_LABELS.has(label.toLowerCase())) continue;
    if (!isObject(value)) {
      notes.push(`A structured/json part${label ? ` labelled "${label}"` : ''} is not a JSON object and was not used.`);
      continue;
    }
    if (label?.toLowerCase() === CONTEXT_LABEL) {
      Object.assign(context, value);
      continue;
    }
    const asked = structuredQuestion(value);
    // The text parts are the question; a structured question counts only when there is no text.
    if (!text && asked.text) text = asked.text;
    if (asked.context) Object.assign(context, asked.context);
    Object.assign(filters, asked.filters);
  }
  // The question is the text; a filter never replaces it.
  delete filters.text;

  const location = messageLocations(msg)[0];
  if (location) {
    filters.location =
      location.kind === 'text' ? location.text : { '@type': 'GeoCoordinates', latitude: location.latitude, longitude: location.longitude };
  }

  const attachments = [...opts.uploads];
  for (const b of binaryParts(msg)) {
    if (b.data === null) notes.push(`A binary part (${b.subformat || 'no subformat'}) is not valid base64 and was not used.`);
    else attachments.push(toAttachment(b.subformat, b.data, b.label));
  }

  let request: AskRequest = { query: { ...filters, text } };
  if (Object.keys(context).length > 0) request.context = context as AskRequest['context'];
  if (opts.conversationId) request = inConversation(request, opts.conversationId);
  return { request, text, attachments, notes };
}

/**
 * What AskRequestSchema gives back for `request` with `text` as its question, when the message named
 * nothing besides (no filters, context or conversation) and `text` is trimmed and not empty: the
 * plain `{ query: { text } }` (request.test.ts holds the two to that); undefined for anything else,
 * which the schema judges. Its parse was ≈ 7 µs of an NLIP message in place (issue 25).
 */
export function plainAsk(request: AskRequest, text: string): AskRequest | undefined {
  let keys = 0;
  for (const k in request) if (k !== 'query' || ++keys > 1) return undefined;
  for (const k in request.query) if (k !== 'text') return undefined;
  return text !== '' && text === text.trim() ? { query: { text } } : undefined;
}

/** Puts attachments into the request (for an agent that takes them, docs/nlip.md). */
export function withAttachments(request: AskRequest, attachments: MediaAttachment[]): AskRequest {
  if (attachments.length === 0) return request;
  return { ...request, context: { ...request.context, [ATTACHMENTS_KEY]: attachments } };
}

/** A sentence naming attachments an agent cannot take. */
export function attachmentsNote(agent: string, attachments: MediaAttachment[]): string {
  const kinds = attachments.map((a) => a.name ? `${a.name} (${a.encodingFormat})` : a.encodingFormat);
  return `Agent "${agent}" does not take binary content, so ${attachments.length === 1 ? 'this part was' : 'these parts were'} not passed on: ${kinds.join(', ')}.`;
}

/**
 * 6.5 + transport: the client's credential, from the `Authorization` header or an `authentication`
 * / `authorization` token submessage (a bare token becomes a Bearer credential).
 */
export function readCredentials(header: string | undefined, msg: NlipMessage): { authorization?: string } | undefined {
  const fromHeader = header?.trim();
  if (fromHeader) return { authorization: fromHeader };
  const token = authTokens(msg)[0];
  if (token === undefined) return undefined;
  return { authorization: /\s/.test(token) ? token : `Bearer ${token}` };
}
