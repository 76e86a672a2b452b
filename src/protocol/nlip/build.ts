import { TOKEN_PREFIX } from './formats.ts';
import { CONTROL_MESSAGE_TYPE, NLIP_FORMATS, type NlipContent, type NlipMessage, type NlipPart } from './message.ts';

/**
 * Builders for what the gateway emits (emit strictly, interop.md): lowercase keys, no nulls,
 * `content` always a string or an object, formats only from Table 1.
 */

/** The text subformat the gateway emits: every end-point supports English (5.3, last sentence). */
export const DEFAULT_LANGUAGE = 'english';

function withLabel(part: NlipPart, label: string | undefined): NlipPart {
  return label === undefined ? part : { ...part, label };
}

/** Table 1 `text` in a language. */
export function textPart(text: string, opts: { language?: string; label?: string } = {}): NlipPart {
  return withLabel({ format: 'text', subformat: opts.language ?? DEFAULT_LANGUAGE, content: text }, opts.label);
}

/** Table 1 `token` with a `<prefix>[_<suffix>]` subformat. */
export function tokenPart(subformat: string, token: string, label?: string): NlipPart {
  return withLabel({ format: 'token', subformat, content: token }, label);
}

/** 6.2 A conversation token minted by this end-point: the subformat is exactly `conversation`. */
export function conversationTokenPart(token: string): NlipPart {
  return tokenPart(TOKEN_PREFIX.conversation, token);
}

/**
 * Table 1 `structured`/`json`. Objects go as object content; any other JSON value (an array, a
 * number) goes as JSON text, since peers take only strings or objects as content.
 */
export function jsonPart(value: unknown, label?: string): NlipPart {
  const content: NlipContent =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : JSON.stringify(value ?? null);
  return withLabel({ format: 'structured', subformat: 'json', content }, label);
}

/** Table 1 `structured`/`uri` (6.4 upload location). */
export function uriPart(uri: string, label?: string): NlipPart {
  return withLabel({ format: 'structured', subformat: 'uri', content: uri }, label);
}

/** Table 1 `error`: `code` (a machine code) or `text` (a description). */
export function errorPart(subformat: 'code' | 'text', content: string): NlipPart {
  return { format: 'error', subformat, content };
}

/** Table 1 `binary` with standard base64 content. */
export function binaryPart(subformat: string, data: Uint8Array, label?: string): NlipPart {
  return withLabel({ format: 'binary', subformat, content: Buffer.from(data).toString('base64') }, label);
}

/** Options for `nlipMessage`. */
export interface MessageOptions {
  /** 5.1.1 / 6.3 Mark the message as a control message. */
  control?: boolean;
  /** Also emit the older `control` boolean (only to a peer that sent it itself, 6.3). */
  legacyControl?: boolean;
}

/** 5.1 A message from its first part and submessages (an empty list is left out, 5.1.5 "one or more"). */
export function nlipMessage(first: NlipPart, submessages: NlipPart[] = [], opts: MessageOptions = {}): NlipMessage {
  const msg: NlipMessage = {
    ...(opts.control ? { messagetype: CONTROL_MESSAGE_TYPE } : {}),
    ...(opts.legacyControl ? { control: opts.control === true } : {}),
    format: first.format,
    subformat: first.subformat,
    content: first.content,
  };
  if (first.label !== undefined) msg.label = first.label;
  if (submessages.length > 0) msg.submessages = submessages;
  return msg;
}

const MESSAGE_KEYS = ['messagetype', 'control', 'format', 'subformat', 'content', 'label'] as const;
const PART_KEYS = ['format', 'subformat', 'content', 'label'] as const;

/** The listed keys that have a value, in that order (content objects are passed through untouched). */
function pick(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) out[k] = o[k];
  return out;
}

const FORMATS: ReadonlySet<string> = new Set(NLIP_FORMATS);
const isPlainObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What in one part breaks the emitted schema (message.ts `NlipSubmessageSchema`), or undefined. */
function partProblem(p: Record<string, unknown>): string | undefined {
  if (typeof p.format !== 'string' || !FORMATS.has(p.format)) return 'format';
  if (typeof p.subformat !== 'string') return 'subformat';
  if (typeof p.content !== 'string' && !isPlainObject(p.content)) return 'content';
  if (p.label !== undefined && typeof p.label !== 'string') return 'label';
  return undefined;
}

/**
 * What in a message breaks the emitted schema (`NlipMessageSchema`), or undefined. Checked by hand,
 * not with `NlipMessageSchema.parse`: zod's record check walks every key of every object content (each
 * result item of an answer) on every reply, and that was most of the cost of rendering one (issue 25);
 * `build.property.test.ts` holds this check to the schema's verdict on generated messages.
 */
export function wireProblem(msg: NlipMessage): string | undefined {
  const m = msg as unknown as Record<string, unknown>;
  if (!isPlainObject(m)) return 'message';
  if (m.messagetype !== undefined && typeof m.messagetype !== 'string') return 'messagetype';
  if (m.control !== undefined && typeof m.control !== 'boolean') return 'control';
  const first = partProblem(m);
  if (first) return first;
  if (m.submessages === undefined) return undefined;
  if (!Array.isArray(m.submessages)) return 'submessages';
  for (const [i, s] of (m.submessages as unknown[]).entries()) {
    const problem = isPlainObject(s) ? partProblem(s as Record<string, unknown>) : 'a submessage that is not an object';
    if (problem) return `submessages.${i}.${problem}`;
  }
  return undefined;
}

/**
 * 5 The JSON body for a message: checked against the strict schema (a bug inside the gateway can
 * never put a malformed message on the wire), then written with lowercase keys only, no empty ones.
 */
export function toWire(msg: NlipMessage): Record<string, unknown> {
  const problem = wireProblem(msg);
  if (problem) throw new Error(`Refusing to emit a malformed NLIP message (${problem})`);
  const out = pick(msg, MESSAGE_KEYS);
  if (msg.submessages && msg.submessages.length > 0) out.submessages = msg.submessages.map((s) => pick(s, PART_KEYS));
  return out;
}
