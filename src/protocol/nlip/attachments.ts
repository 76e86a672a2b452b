import { binaryPart } from './build.ts';
import { decodeBase64Content, parseBinarySubformat } from './formats.ts';
import type { NlipPart } from './message.ts';

/**
 * NLIP binary content (Table 1 `binary`) inside the canonical NLWeb request. NLWeb v0.55 has no
 * media field, so the gateway carries binaries as schema.org MediaObjects in `context.attachments`,
 * with the bytes in a `data:` URL. Only agents that declare `capabilities.attachments: true` get
 * them. A MediaObject is only ever read from its `data:` URL: a URL taken from a message is never
 * dialled (SSRF).
 */

/** Where attachments ride in an AskRequest. */
export const ATTACHMENTS_KEY = 'attachments';

/** A binary part as a schema.org MediaObject. */
export interface MediaAttachment {
  '@type': 'MediaObject';
  /** MIME type (`image/png`), `application/octet-stream` when unknown. */
  encodingFormat: string;
  /** `data:<type>;base64,<bytes>`. */
  contentUrl: string;
  contentSize: number;
  /** The NLIP label of the part, when it had one. */
  name?: string;
  /** The NLIP subformat as the peer sent it, so an NLIP upstream gets exactly that. */
  nlipSubformat: string;
}

/** Table 1 `binary` → MediaObject (the bytes already decoded). */
export function toAttachment(subformat: string, data: Uint8Array, label?: string): MediaAttachment {
  const { mediaType } = parseBinarySubformat(subformat);
  const att: MediaAttachment = {
    '@type': 'MediaObject',
    encodingFormat: mediaType,
    contentUrl: `data:${mediaType};base64,${Buffer.from(data).toString('base64')}`,
    contentSize: data.byteLength,
    nlipSubformat: subformat,
  };
  if (label !== undefined) att.name = label;
  return att;
}

/** MediaObject → Table 1 `binary`, from its `data:` URL only; null for anything else. */
export function fromAttachment(value: unknown): NlipPart | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.contentUrl !== 'string' || !/^data:[^,]*;base64,/i.test(v.contentUrl)) return null;
  const data = decodeBase64Content(v.contentUrl);
  if (data === null) return null;
  const declared = typeof v.nlipSubformat === 'string' && v.nlipSubformat !== '' ? v.nlipSubformat : undefined;
  const mediaType = typeof v.encodingFormat === 'string' ? v.encodingFormat.toLowerCase() : 'application/octet-stream';
  const subformat = declared ?? (mediaType === 'application/octet-stream' ? 'generic/bin' : mediaType);
  return binaryPart(subformat, data, typeof v.name === 'string' ? v.name : undefined);
}

/** The attachments of a request context (absent or malformed entries give an empty list). */
export function contextAttachments(context: Record<string, unknown> | undefined): unknown[] {
  const list = context?.[ATTACHMENTS_KEY];
  return Array.isArray(list) ? list : [];
}

