import { jsonTooDeep } from '../json-depth.ts';
import { z } from 'zod';
import { describeIssues } from '../../base/errors.ts';
import { NLIP_FORMATS, isControlMessage, type NlipContent, type NlipFormat, type NlipMessage, type NlipSubmessage } from './message.ts';

/**
 * The inbound NLIP parser: accept loosely (interop.md "NLIP"), yield the strict shapes of message.ts.
 *
 * - keys in any case (5.2.1 "without regard of the capitalization"); an exactly lowercase key wins
 *   when a peer sends two spellings; `null` means absent;
 * - `format` in any case, lowercased; it must be one of Table 1;
 * - `subformat` may be missing (empty) or a number; `label` may be a number (a sequence number);
 * - `content`: a string or an object as is; a number or boolean becomes its text (Table 1 `error`
 *   codes are numbers); an array is kept as JSON text in a `structured` part and refused elsewhere;
 * - control: `messagetype` (any case) or the older `control: true` (also `"true"`).
 */

/** The parser's verdict: a message, or one sentence saying what is wrong with the input. */
export type NlipParseResult =
  | {
      ok: true;
      message: NlipMessage;
      /** 5.1.1 / 6.3: the message is a control message. */
      control: boolean;
      /** The peer used the older `control` key: answer with it too (6.3). */
      legacyControl: boolean;
    }
  | { ok: false; error: string };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Lowercases keys and drops nulls, one level deep (content is the peer's own data and stays as is).
 * The result has no prototype, so a key named `__proto__` is a key like any other.
 */
function normalizeKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const k of Object.keys(value)) {
    const v = value[k];
    if (v === null || v === undefined) continue;
    const key = k.toLowerCase();
    if (k !== key && key in out) continue;
    out[key] = v;
  }
  return out;
}

const FORMAT_LIST = NLIP_FORMATS.join(', ');

const FormatSchema = z
  .string({ error: (iss) => (iss.input === undefined ? 'required' : 'must be a string') })
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.enum(NLIP_FORMATS, { error: (iss) => `must be one of ${FORMAT_LIST} (got "${String(iss.input).slice(0, 40)}")` }));

/** A string, or a number turned into its text (labels as sequence numbers, numeric subformats). */
const TextLikeSchema = (field: string) =>
  z.union([z.string(), z.number().transform(String)], { error: 'must be a string' });

const partShape = {
  format: FormatSchema,
  subformat: TextLikeSchema('subformat').optional(),
  content: z.unknown().optional(),
  label: TextLikeSchema('label').optional(),
};

type RawPart = { format: NlipFormat; subformat?: string | undefined; content?: unknown; label?: string | undefined };

/** The one thing `finishPart` needs from zod's refinement context. */
type IssueSink = { addIssue(issue: { code: 'custom'; path: PropertyKey[]; message: string }): void };

/** 5.1.4 / 5.2.4 Content as the emitted schema allows it, or a reason it cannot be. */
function normalizeContent(format: NlipFormat, content: unknown): { ok: true; content: NlipContent } | { ok: false; error: string } {
  if (content === undefined) return { ok: false, error: 'required' };
  if (typeof content === 'string' || isPlainObject(content)) return { ok: true, content };
  if (typeof content === 'number' || typeof content === 'boolean') return { ok: true, content: String(content) };
  if (Array.isArray(content) && format === 'structured') return { ok: true, content: JSON.stringify(content) };
  return { ok: false, error: `must be a string or an object${Array.isArray(content) ? ', not an array' : ''}` };
}

/** Builds the strict part, or reports the content problem on `ctx`. */
function finishPart(raw: RawPart, ctx: IssueSink): NlipSubmessage {
  const content = normalizeContent(raw.format, raw.content);
  if (!content.ok) {
    ctx.addIssue({ code: 'custom', path: ['content'], message: content.error });
    return z.NEVER;
  }
  const part: NlipSubmessage = { format: raw.format, subformat: raw.subformat ?? '', content: content.content };
  if (raw.label !== undefined) part.label = raw.label;
  return part;
}

/** What a non-object input is, for the rejection sentence. */
function kindOf(input: unknown): string {
  if (input === null) return 'null';
  return Array.isArray(input) ? 'an array' : `a ${typeof input}`;
}

const objectError = (what: string) => ({
  error: (iss: { input: unknown }) => `${what}must be a JSON object${iss.input === undefined ? '' : `, not ${kindOf(iss.input)}`}`,
});

/** 5.2 One inbound submessage. */
export const NlipWireSubmessageSchema = z.preprocess(
  normalizeKeys,
  z.object(partShape, objectError('')).transform(finishPart),
);

const ControlFlagSchema = z.union([z.boolean(), z.stringbool({ truthy: ['true'], falsy: ['false'], case: 'insensitive' })], {
  error: 'must be true or false',
});

/** 5.1 One inbound message: the first submessage, `messagetype` or `control`, and `submessages`. */
export const NlipWireMessageSchema = z.preprocess(
  normalizeKeys,
  z
    .object(
      {
        ...partShape,
        messagetype: z.string({ error: 'must be a string' }).optional(),
        control: ControlFlagSchema.optional(),
        submessages: z.array(NlipWireSubmessageSchema, { error: 'must be an array' }).optional(),
      },
      objectError('an NLIP message '),
    )
    .transform((raw, ctx): NlipMessage => {
      const first = finishPart(raw, ctx);
      const msg: NlipMessage = { ...first };
      if (raw.messagetype !== undefined) msg.messagetype = raw.messagetype;
      if (raw.control !== undefined) msg.control = raw.control;
      if (raw.submessages !== undefined && raw.submessages.length > 0) msg.submessages = raw.submessages;
      return msg;
    }),
);

/** 5 Parses any JSON value as an NLIP message; never throws. */
export function parseNlipMessage(raw: unknown): NlipParseResult {
  let parsed: ReturnType<typeof NlipWireMessageSchema.safeParse>;
  try {
    parsed = NlipWireMessageSchema.safeParse(raw);
  } catch {
    // Defensive: a pathological value (e.g. a getter that throws) is still a clean rejection.
    return { ok: false, error: 'the body is not an NLIP message' };
  }
  if (!parsed.success) return { ok: false, error: `not an NLIP message: ${describeIssues(parsed.error.issues)}` };
  const message = parsed.data;
  return { ok: true, message, control: isControlMessage(message), legacyControl: message.control !== undefined };
}

/**
 * 5 Parses a request body's text (JSON, then NLIP); never throws. `recognise` may answer a parsed
 * body without the schema: it must give exactly the schema's message (the binding's fast path, held
 * to that by its property test), or undefined to let the schema parse it.
 */
export function parseNlipText(text: string, recognise?: (raw: unknown) => NlipMessage | undefined): NlipParseResult {
  const tooDeep = jsonTooDeep(text);
  if (tooDeep) return { ok: false, error: tooDeep.replace(/^The/, 'the') };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: 'the body is not JSON (an NLIP message is a JSON object, ECMA-404)' };
  }
  const message = recognise?.(raw);
  if (message) return { ok: true, message, control: isControlMessage(message), legacyControl: message.control !== undefined };
  return parseNlipMessage(raw);
}
