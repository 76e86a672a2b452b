import {
  decodeBase64Content,
  isAuthToken,
  isConversationToken,
  isPromiseToken,
  parseBinarySubformat,
  readLocation,
  readStructuredJson,
  structuredKind,
  type BinarySubformat,
  type NlipLocation,
} from './formats.ts';
import { messageParts, type NlipMessage, type NlipPart } from './message.ts';

/**
 * Readers over a whole message (5.1 first submessage + 5.1.5 submessages, in order). They never
 * throw: a part that cannot be read is skipped (and, where it matters, reported by the caller).
 */

/** 5.3 `text`: the text parts' contents (string content only), in order, optionally of one language. */
export function messageTexts(msg: NlipMessage, opts: { language?: string } = {}): string[] {
  const lang = opts.language?.toLowerCase();
  return messageParts(msg)
    .filter((p) => p.format === 'text' && typeof p.content === 'string')
    .filter((p) => lang === undefined || p.subformat.toLowerCase() === lang)
    .map((p) => (p.content as string).trim())
    .filter((t) => t.length > 0);
}

/** 5.3 `text`: all text of a message joined into one string (empty when there is none). */
export function messageText(msg: NlipMessage, opts: { language?: string; separator?: string } = {}): string {
  return messageTexts(msg, opts).join(opts.separator ?? '\n');
}

/** 5.3 `token`: the token parts whose subformat prefix is one of `prefixes` (all tokens when none given). */
export function messageTokens(msg: NlipMessage, ...prefixes: string[]): NlipPart[] {
  const wanted = prefixes.map((p) => p.toLowerCase());
  return messageParts(msg).filter(
    (p) => p.format === 'token' && (wanted.length === 0 || wanted.some((w) => p.subformat.trim().toLowerCase().startsWith(w))),
  );
}

/** 6.2 The conversation token parts, exactly as received (to be echoed). */
export function conversationTokens(msg: NlipMessage): NlipPart[] {
  return messageParts(msg).filter(isConversationToken);
}

/** 6.5 The authentication/authorization token contents (string content only). */
export function authTokens(msg: NlipMessage): string[] {
  return messageParts(msg)
    .filter(isAuthToken)
    .map((p) => (typeof p.content === 'string' ? p.content.trim() : ''))
    .filter((t) => t.length > 0);
}

/** Promise tokens a peer sent back to check in on a pending answer. */
export function promiseTokens(msg: NlipMessage): string[] {
  return messageParts(msg)
    .filter(isPromiseToken)
    .map((p) => (typeof p.content === 'string' ? p.content.trim() : ''))
    .filter((t) => t.length > 0);
}

/** 5.3 `structured`: the structured parts, optionally of one subformat (`json`, `uri`, ...). */
export function structuredParts(msg: NlipMessage, subformat?: string): NlipPart[] {
  const want = subformat?.toLowerCase();
  return messageParts(msg).filter((p) => p.format === 'structured' && (want === undefined || structuredKind(p) === want));
}

/** A `structured`/`json` part read as JSON. */
export interface JsonPart {
  label?: string;
  value: unknown;
}

/** 5.3 `structured`/`json`: every JSON part's value with its label; unparseable parts are skipped. */
export function jsonParts(msg: NlipMessage): JsonPart[] {
  const out: JsonPart[] = [];
  for (const p of structuredParts(msg, 'json')) {
    const value = readStructuredJson(p);
    if (value === undefined) continue;
    out.push(p.label === undefined ? { value } : { label: p.label, value });
  }
  return out;
}

/** 5.3 `location`: every readable location, in order. */
export function messageLocations(msg: NlipMessage): NlipLocation[] {
  return messageParts(msg)
    .map(readLocation)
    .filter((l): l is NlipLocation => l !== null);
}

/** A `binary` part, decoded. `data` is null when the content is not base64. */
export interface BinaryPart extends BinarySubformat {
  label?: string;
  subformat: string;
  data: Buffer | null;
}

/** 5.3 `binary`: every binary part with its `<kind>/<encoding>` read and its content decoded. */
export function binaryParts(msg: NlipMessage): BinaryPart[] {
  return messageParts(msg)
    .filter((p) => p.format === 'binary')
    .map((p) => {
      const part: BinaryPart = { ...parseBinarySubformat(p.subformat), subformat: p.subformat, data: decodeBase64Content(p.content) };
      if (p.label !== undefined) part.label = p.label;
      return part;
    });
}

/** 5.3 `error`: the error parts' contents as text (`code` and `text` subformats alike). */
export function messageErrors(msg: NlipMessage): Array<{ subformat: string; content: string }> {
  return messageParts(msg)
    .filter((p) => p.format === 'error')
    .map((p) => ({ subformat: p.subformat.toLowerCase(), content: typeof p.content === 'string' ? p.content : JSON.stringify(p.content) }));
}
