import { NLIP_FORMATS, type NlipMessage, type NlipSubmessage } from '../../protocol/nlip/index.ts';
import { isPlainObject, onlyKeys } from '../json-shape.ts';

/**
 * The plain NLIP message recognised by its shape (issue 25): every key already lowercase and one the
 * wire schema reads, no nulls, a `format` already as Table 1 spells it, text `subformat`s and
 * `label`s, string or object content, and no legacy `control` flag. For such a body the wire schema
 * (`NlipWireMessageSchema`, src/protocol/nlip/parse.ts, the source of truth) gives the same message
 * back (plain-message.test.ts holds the two to that on generated bodies, valid and invalid);
 * anything else — other spellings, numbers where text goes, arrays as content — is left to it.
 * In place, `parseNlipText` took 9-13 µs of a one-part message with the schema, 4-6 with this.
 */

const FORMATS: ReadonlySet<string> = new Set(NLIP_FORMATS);
const PART_KEYS = ['format', 'subformat', 'content', 'label'];
const MESSAGE_KEYS = [...PART_KEYS, 'messagetype', 'submessages'];

/** 5.2 a part as the schema builds it from a plain one (subformat `''` when absent); undefined when not plain. */
function plainPart(p: Record<string, unknown>): NlipSubmessage | undefined {
  const { format, subformat, content, label } = p;
  if (typeof format !== 'string' || !FORMATS.has(format)) return undefined;
  if ((subformat !== undefined && typeof subformat !== 'string') || (label !== undefined && typeof label !== 'string')) return undefined;
  if (typeof content !== 'string' && !isPlainObject(content)) return undefined;
  const part: NlipSubmessage = { format: format as NlipSubmessage['format'], subformat: subformat ?? '', content };
  if (label !== undefined) part.label = label;
  return part;
}

/** The message of a plain NLIP body (see above), as the wire schema gives it; undefined for anything else. */
export function plainNlipMessage(body: unknown): NlipMessage | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS)) return undefined;
  const first = plainPart(body);
  if (!first || (body.messagetype !== undefined && typeof body.messagetype !== 'string')) return undefined;
  const msg: NlipMessage = { ...first };
  if (body.messagetype !== undefined) msg.messagetype = body.messagetype as string;
  const { submessages } = body;
  if (submessages === undefined) return msg;
  if (!Array.isArray(submessages)) return undefined;
  const parts: NlipSubmessage[] = [];
  for (const s of submessages) {
    const part = isPlainObject(s) && onlyKeys(s, PART_KEYS) ? plainPart(s) : undefined;
    if (!part) return undefined;
    parts.push(part);
  }
  if (parts.length > 0) msg.submessages = parts;
  return msg;
}
