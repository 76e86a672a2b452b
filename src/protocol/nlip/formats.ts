import type { NlipPart } from './message.ts';

/**
 * How to read one part's `subformat` and `content` for each format of Table 1 (ECMA-430 5.3).
 * All comparisons are case-insensitive; nothing here throws on odd input.
 */

/** Reserved token prefixes (6.2, 6.5): `conversation`, and `authentication` (spec) / `authorization` (SDKs). */
export const TOKEN_PREFIX = {
  conversation: 'conversation',
  authentication: 'authentication',
  authorization: 'authorization',
  /** The gateway's own prefix for a promise it hands out (design.md mapping table). */
  promise: 'promise',
} as const;

/** Table 1 `token`: the prefix of a `<prefix>_<suffix>` subformat, lowercased. */
export function tokenPrefix(subformat: string): string {
  return subformat.split('_', 1)[0]!.trim().toLowerCase();
}

/** 6.2 A conversation token: format `token`, subformat beginning with `conversation`. */
export function isConversationToken(part: NlipPart): boolean {
  return part.format === 'token' && part.subformat.trim().toLowerCase().startsWith(TOKEN_PREFIX.conversation);
}

/** 6.5 An authentication token (`authentication`, or `authorization` as the SDKs send it). */
export function isAuthToken(part: NlipPart): boolean {
  const p = part.subformat.trim().toLowerCase();
  return part.format === 'token' && (p.startsWith(TOKEN_PREFIX.authentication) || p.startsWith(TOKEN_PREFIX.authorization));
}

/** A promise token (gateway convention for NLWeb 4.1.2 promises carried in NLIP). */
export function isPromiseToken(part: NlipPart): boolean {
  return part.format === 'token' && tokenPrefix(part.subformat) === TOKEN_PREFIX.promise;
}

/** Table 1 `binary`: a `<kind>/<encoding>` subformat read loosely. */
export interface BinarySubformat {
  /** `audio`, `image`, `video`, `sensor`, `generic` (or whatever the peer said). */
  kind: string;
  /** The encoding without its optional leading `.` (`png`, `mp3`); empty when the peer gave none. */
  encoding: string;
  /** A MIME type for agents that take media (`image/png`), `application/octet-stream` when unknown. */
  mediaType: string;
}

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  bmp: 'image/bmp', svg: 'image/svg+xml', tif: 'image/tiff', tiff: 'image/tiff',
  mp3: 'audio/mpeg', mpeg: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', flac: 'audio/flac', m4a: 'audio/mp4',
  mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', avi: 'video/x-msvideo',
  pdf: 'application/pdf', zip: 'application/zip', json: 'application/json', csv: 'text/csv', txt: 'text/plain',
};

const MIME_TOP_LEVEL = new Set(['image', 'audio', 'video', 'text', 'application', 'font', 'model']);

/** Table 1 `binary`: reads `image/png`, `audio/.mp3`, `jpeg`, `image/base64`, `audio/wav;base64`. */
export function parseBinarySubformat(subformat: string): BinarySubformat {
  const main = subformat.trim().toLowerCase().split(';', 1)[0]!.trim();
  const slash = main.indexOf('/');
  let kind = slash >= 0 ? main.slice(0, slash).trim() : '';
  let encoding = (slash >= 0 ? main.slice(slash + 1) : main).trim().replace(/^\.+/, '');
  // `image/base64` names the transfer encoding, not the media encoding.
  if (encoding === 'base64') encoding = '';
  const known = MEDIA_TYPES[encoding];
  if (kind === '') kind = known?.split('/')[0] ?? 'generic';
  let mediaType: string;
  if (known && (kind === 'generic' || known.startsWith(`${kind}/`))) mediaType = known;
  // A subformat that is already a MIME type (`text/plain`, `video/mpeg`) is taken as it is.
  else if (encoding !== '' && MIME_TOP_LEVEL.has(kind)) mediaType = `${kind}/${encoding}`;
  else mediaType = known ?? 'application/octet-stream';
  return { kind, encoding, mediaType };
}

/**
 * Table 1 `binary`: decodes base64 content (standard alphabet; URL-safe letters, line breaks, missing
 * padding and a `data:` URL prefix are tolerated). Returns null when the content is not base64.
 */
export function decodeBase64Content(content: unknown): Buffer | null {
  if (typeof content !== 'string') return null;
  let s = content.trim();
  const dataUrl = /^data:[^,]*;base64,/i.exec(s);
  if (dataUrl) s = s.slice(dataUrl[0].length);
  s = s.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) return null;
  return Buffer.from(s, 'base64');
}

/** Table 1 `location`: a text description or GPS coordinates. */
export type NlipLocation = { kind: 'text'; text: string } | { kind: 'gps'; latitude: number; longitude: number };

function coordinate(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/**
 * Table 1 `location`: `text` content is a description; `GPS` content is `"lat,lon"` (or space
 * separated) or an object with `latitude`/`longitude` (`lat`, `lon`/`lng` tolerated). Null when unreadable.
 */
export function readLocation(part: NlipPart): NlipLocation | null {
  if (part.format !== 'location') return null;
  if (part.subformat.trim().toLowerCase() !== 'gps') {
    const text = typeof part.content === 'string' ? part.content.trim() : '';
    return text === '' ? null : { kind: 'text', text };
  }
  let lat: number | undefined;
  let lon: number | undefined;
  if (typeof part.content === 'string') {
    const bits = part.content.trim().split(/[\s,;]+/);
    if (bits.length === 2) [lat, lon] = [coordinate(bits[0]), coordinate(bits[1])];
  } else {
    const o = part.content;
    lat = coordinate(o.latitude ?? o.lat);
    lon = coordinate(o.longitude ?? o.lon ?? o.lng);
  }
  if (lat === undefined || lon === undefined || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return { kind: 'gps', latitude: lat, longitude: lon };
}

/** Table 1 `structured`: the subformat lowercased (`json`, `uri`, `xml`, `html`, or a language name). */
export function structuredKind(part: NlipPart): string {
  return part.subformat.trim().toLowerCase();
}

/**
 * Table 1 `structured`/`json`: the JSON value of a part (object content as is, string content
 * parsed). `undefined` when the part is not JSON or does not parse.
 */
export function readStructuredJson(part: NlipPart): unknown {
  if (part.format !== 'structured' || structuredKind(part) !== 'json') return undefined;
  if (typeof part.content !== 'string') return part.content;
  try {
    return JSON.parse(part.content) as unknown;
  } catch {
    return undefined;
  }
}
