import type { AgentEvent } from '../../src/core/events.ts';
import { ElicitationSchema, FAILURE_CODES, ResultItemSchema, type ResultItem } from '../../src/protocol/nlweb/index.ts';
import {
  binaryParts,
  isControlMessage,
  jsonParts,
  messageErrors,
  messageLocations,
  messageText,
  promiseTokens,
  structuredParts,
  toAttachment,
  type NlipMessage,
} from '../../src/protocol/nlip/index.ts';
import { PART_LABEL } from './request.ts';

/**
 * An NLIP reply as canonical events (design.md mapping table, left to right): the text becomes a
 * SearchSummary result, each `structured`/`json` part becomes result items, a `promise` token a
 * promise, a `json` part labelled `elicitation` an elicitation, `error` parts a failure.
 */

const AUTH_WORDS = /authenticat|authori[sz]/i;

/** 6.5 Whether the upstream's reply is a control message asking for authentication. */
export function asksForAuthentication(msg: NlipMessage): boolean {
  return isControlMessage(msg) && (AUTH_WORDS.test(messageText(msg)) || messageErrors(msg).some((e) => e.content === 'UNAUTHORIZED'));
}

/** One JSON value from the upstream as result items: objects as they are, arrays element by element. */
function itemsFromJson(value: unknown, label: string | undefined): ResultItem[] {
  const values = Array.isArray(value) ? value : [value];
  return values.map((v) => {
    const parsed = ResultItemSchema.safeParse(v);
    if (parsed.success) return parsed.data;
    // Not item-shaped (a number, a string, an object with odd typed fields): keep it as a value.
    return { '@type': 'PropertyValue', ...(label !== undefined ? { name: label } : {}), value: v };
  });
}

/** The result items a reply carries besides its text. */
function replyItems(msg: NlipMessage): ResultItem[] {
  const items: ResultItem[] = [];
  for (const { label, value } of jsonParts(msg)) {
    if (label === PART_LABEL.context || label === PART_LABEL.filters || label === PART_LABEL.elicitation) continue;
    items.push(...itemsFromJson(value, label));
  }
  for (const p of structuredParts(msg).filter((s) => s.subformat.toLowerCase() !== 'json')) {
    // A URI or markup from the upstream is data for the client; the gateway never dials it.
    const kind = p.subformat.toLowerCase();
    const content = typeof p.content === 'string' ? p.content : JSON.stringify(p.content);
    items.push(kind === 'uri' ? { '@type': 'WebPage', url: content, ...(p.label ? { name: p.label } : {}) } : { '@type': 'CreativeWork', encodingFormat: kind, text: content });
  }
  for (const b of binaryParts(msg)) {
    if (b.data) items.push(toAttachment(b.subformat, b.data, b.label) as unknown as ResultItem);
  }
  for (const loc of messageLocations(msg)) {
    items.push(loc.kind === 'text' ? { '@type': 'Place', name: loc.text } : { '@type': 'Place', geo: { '@type': 'GeoCoordinates', latitude: loc.latitude, longitude: loc.longitude } });
  }
  return items;
}

function failureCode(msg: NlipMessage): string {
  const code = messageErrors(msg).find((e) => e.subformat === 'code')?.content.trim();
  return code && (FAILURE_CODES as readonly string[]).includes(code) ? code : 'UPSTREAM_ERROR';
}

/**
 * Maps a reply to events. `packToken` turns the upstream's promise token into the token the core
 * stores (the adapter packs its session into it, so a check-in from any replica carries it).
 */
export function* replyEvents(msg: NlipMessage, agent: string, packToken: (token: string) => string): Generator<AgentEvent> {
  yield { type: 'start' };
  const text = messageText(msg);
  const promise = promiseTokens(msg)[0];
  if (promise !== undefined) {
    yield { type: 'promise', promise: { token: packToken(promise), ...(text ? { message: text.slice(0, 500) } : {}) } };
    return;
  }
  for (const { label, value } of jsonParts(msg)) {
    if (label !== PART_LABEL.elicitation) continue;
    const e = ElicitationSchema.safeParse(value);
    if (e.success) {
      yield { type: 'elicitation', elicitation: e.data.text === undefined && text ? { ...e.data, text } : e.data };
      return;
    }
  }
  const items = replyItems(msg);
  const errors = messageErrors(msg);
  if (errors.length > 0 && items.length === 0) {
    const described = text || errors.find((e) => e.subformat === 'text')?.content || `Agent "${agent}" reported an error`;
    yield { type: 'error', code: failureCode(msg), message: described.slice(0, 500) };
    return;
  }
  if (text) yield { type: 'result', item: { '@type': 'SearchSummary', text } };
  for (const item of items) yield { type: 'result', item };
  if (!text && items.length === 0) yield { type: 'error', code: 'NO_RESULTS', message: `Agent "${agent}" answered with an empty message` };
  yield { type: 'complete' };
}
