import { z } from 'zod';

/**
 * NLIP messages (ECMA-430 draft, May 2025, clause 5) as the gateway EMITS them: lowercase keys,
 * no nulls, `content` a string or an object. Inbound messages go through `parseNlipMessage`
 * (parse.ts), which accepts the looser shapes real peers send and yields these same types.
 */

/** 5.3 Table 1: the allowed values of `format` (`error` was dropped later but the SDKs still send it). */
export const NLIP_FORMATS = ['text', 'token', 'structured', 'binary', 'location', 'error', 'generic'] as const;
export type NlipFormat = (typeof NLIP_FORMATS)[number];

/** 5.1.1 The reserved `messagetype` of a control message (compared case-insensitively). */
export const CONTROL_MESSAGE_TYPE = 'control';

/** 5.1.4 / 5.2.4 `content`: the reference client takes a string or an object, nothing else. */
export const NlipContentSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);
export type NlipContent = z.infer<typeof NlipContentSchema>;

/** 5.2 A submessage: `format`, `subformat`, `content`, optional `label`. */
export const NlipSubmessageSchema = z.object({
  format: z.enum(NLIP_FORMATS),
  subformat: z.string(),
  content: NlipContentSchema,
  label: z.string().optional(),
});
export type NlipSubmessage = z.infer<typeof NlipSubmessageSchema>;

/**
 * 5.1 A message: the first submessage (with the optional `messagetype`) plus ordered `submessages`.
 * `control` is the pre-`messagetype` spelling of 6.3, emitted only to peers that used it themselves.
 */
export const NlipMessageSchema = z.object({
  messagetype: z.string().optional(),
  control: z.boolean().optional(),
  ...NlipSubmessageSchema.shape,
  submessages: z.array(NlipSubmessageSchema).optional(),
});
export type NlipMessage = z.infer<typeof NlipMessageSchema>;

/** Any one part of a message: the first submessage or one of `submessages` (5.1, 5.2). */
export type NlipPart = NlipSubmessage;

/** 5.1.1 / 6.3 True for a control message (`messagetype: control` in any case, or legacy `control: true`). */
export function isControlMessage(msg: Pick<NlipMessage, 'messagetype' | 'control'>): boolean {
  return msg.control === true || msg.messagetype?.toLowerCase() === CONTROL_MESSAGE_TYPE;
}

/** 5.1 / 5.1.5 The parts of a message in order: the first submessage, then `submessages`. */
export function messageParts(msg: NlipMessage): NlipPart[] {
  const first: NlipPart = { format: msg.format, subformat: msg.subformat, content: msg.content };
  if (msg.label !== undefined) first.label = msg.label;
  return [first, ...(msg.submessages ?? [])];
}
