import type { Context } from 'hono';
import type { QuotaScope, Store } from '../../store/store.ts';
import { newToken } from '../../core/ids.ts';
import { isOwner, ownerTag } from '../../core/ownership.ts';
import type { Principal } from '../../core/principal.ts';
import type { BindingLimits } from '../types.ts';
import {
  nlipMessage,
  structuredParts,
  textPart,
  toAttachment,
  toWire,
  uriPart,
  type MediaAttachment,
  type NlipMessage,
} from '../../protocol/nlip/index.ts';
import { renderRejection } from './reply.ts';
import { requestHeader } from '../../base/request-headers.ts';

/**
 * ECMA-430 6.4 / 7.3: large binary content goes to `POST /nlip/upload/` (multipart field `contents`,
 * as the reference server takes it) instead of base64 inside a message. The bytes are kept in the
 * store as bytes (a blob in namespace `nlip-upload`, a TTL and a size cap: a Buffer off the heap in
 * memory, never base64 text, issue 24) under an unguessable id; the reply gives a
 * `structured`/`uri` reference that a later message carries. The gateway only ever looks the id up
 * in its store: it never fetches a URI from a message.
 *
 * An upload belongs to the principal that posted it (a reference sent by anyone else is "unknown or
 * expired"), and the bytes held are capped per principal and in total, accounted in the store so the
 * caps hold across replicas (`limits.uploadBytesPerPrincipal`, `limits.uploadBytesTotal`).
 */

export const UPLOAD_NAMESPACE = 'nlip-upload';
/** Uploads live this long. */
export const UPLOAD_TTL_MS = 3_600_000;
/** The largest upload kept. */
export const UPLOAD_MAX_BYTES = 8 * 1024 * 1024;
/** Every upload counts at least this much against the quotas (the record around the bytes costs too). */
export const UPLOAD_MIN_CHARGE = 1024;
/** Room for the multipart framing around the file: a body of N bytes holds a file of at least N minus this. */
export const MULTIPART_OVERHEAD = 64 * 1024;

const REFERENCE = /\/nlip\/upload\/(upload_[A-Za-z0-9_-]{16,64})\/?$/;

/** What is kept beside an upload's bytes (the blob's `meta`, JSON). */
interface UploadFacts {
  name: string;
  type: string;
  /** Owner tag of the principal that uploaded it (core/ownership.ts). */
  owner?: string;
}

/** The quota scopes an upload of `owner` counts against: the principal's own, and everyone's. */
export function uploadScopes(owner: Principal, limits: BindingLimits): QuotaScope[] {
  return [
    { key: `nlip-upload:principal:${ownerTag(owner)}`, limit: limits.uploadBytesPerPrincipal },
    { key: 'nlip-upload:total', limit: limits.uploadBytesTotal },
  ];
}

/** The `contents` file of an upload request, or the 400/413 answer when there is none or it is too large. */
async function readUploadFile(c: Context): Promise<File | Response> {
  const invalid = () => c.json(toWire(renderRejection('The upload must be multipart/form-data with a file field "contents".', 'INVALID_REQUEST')), 400);
  let form: Record<string, string | File | (string | File)[]>;
  try {
    form = await c.req.parseBody();
  } catch {
    return invalid();
  }
  const file = form.contents;
  if (!(file instanceof File)) return invalid();
  if (file.size > UPLOAD_MAX_BYTES) {
    return c.json(toWire(renderRejection(`The upload is larger than ${UPLOAD_MAX_BYTES} bytes.`, 'PAYLOAD_TOO_LARGE')), 413);
  }
  return file;
}

/** The path uploads are posted to, under a mount prefix (`''` or `/agents/{name}`). */
export function uploadPath(prefix: string): string {
  return `${prefix}/nlip/upload/`;
}

/** What an upload request is checked and accounted against. */
export interface UploadPolicy {
  owner: Principal;
  limits: BindingLimits;
}

/** Handles `POST /nlip/upload/`: stores the `contents` file of `policy.owner` and answers with its reference (6.4). */
export async function handleUpload(c: Context, store: Store, base: string, policy: UploadPolicy): Promise<Response> {
  const id = newToken('upload');
  const scopes = uploadScopes(policy.owner, policy.limits);
  const overQuota = () => {
    const { uploadBytesPerPrincipal: mine, uploadBytesTotal: all } = policy.limits;
    const text =
      `The upload would go over the upload quota (${mine} bytes held per caller, ${all} bytes for all callers together): ` +
      `earlier uploads are held for ${UPLOAD_TTL_MS / 60_000} minutes; try again after they expire.`;
    return c.json(toWire(renderRejection(text, 'PAYLOAD_TOO_LARGE')), 413);
  };
  // Refused before the body is parsed when even the smallest file this body can hold does not fit:
  // a caller over its quota cannot make the gateway decode megabytes just to say no.
  const declared = Number(requestHeader(c.req.raw, 'content-length'));
  const floor = Number.isFinite(declared) ? Math.max(UPLOAD_MIN_CHARGE, declared - MULTIPART_OVERHEAD) : UPLOAD_MIN_CHARGE;
  if (!(await store.reserveQuota(scopes, id, floor, UPLOAD_TTL_MS))) return overQuota();
  let file: File;
  try {
    const parsed = await readUploadFile(c);
    if (parsed instanceof Response) {
      await store.releaseQuota(scopes, id);
      return parsed;
    }
    file = parsed;
  } catch (err) {
    await store.releaseQuota(scopes, id).catch(() => undefined);
    throw err;
  }
  // The exact charge replaces the provisional one (same reservation id).
  if (!(await store.reserveQuota(scopes, id, Math.max(file.size, UPLOAD_MIN_CHARGE), UPLOAD_TTL_MS))) {
    await store.releaseQuota(scopes, id);
    return overQuota();
  }
  const record: UploadFacts = {
    name: file.name.slice(0, 200),
    type: file.type || 'application/octet-stream',
    owner: ownerTag(policy.owner),
  };
  try {
    // The file's own bytes, not a copy: the blob holds exactly `file.size` bytes until it expires.
    await store.putBlob(UPLOAD_NAMESPACE, id, { meta: JSON.stringify(record), bytes: Buffer.from(await file.arrayBuffer()) }, UPLOAD_TTL_MS);
  } catch (err) {
    await store.releaseQuota(scopes, id).catch(() => undefined);
    throw err;
  }
  const reference = `${base}${id}`;
  const reply = nlipMessage(
    textPart(`File ${record.name || 'upload'} uploaded (${file.size} bytes). Send the structured/uri submessage below in a message to use it; it expires in ${UPLOAD_TTL_MS / 60_000} minutes.`),
    [uriPart(reference, 'upload')],
  );
  return c.json(toWire(reply));
}

/** Whether a message has any `uri` part that could reference an upload (loadUploads has something to read). */
export function referencesUploads(msg: NlipMessage): boolean {
  return structuredParts(msg, 'uri').length > 0;
}

/**
 * The uploads of `owner` a message references (`structured`/`uri` parts naming an upload of this
 * gateway), as attachments; unknown, expired or another caller's references are named in `missing`,
 * all alike. Other URIs are ignored.
 */
export async function loadUploads(store: Store, msg: NlipMessage, owner: Principal | undefined): Promise<{ uploads: MediaAttachment[]; missing: string[] }> {
  const uploads: MediaAttachment[] = [];
  const missing: string[] = [];
  for (const part of structuredParts(msg, 'uri')) {
    if (typeof part.content !== 'string') continue;
    let path: string;
    try {
      path = new URL(part.content, 'http://reference.invalid').pathname;
    } catch {
      continue;
    }
    const id = REFERENCE.exec(path)?.[1];
    if (id === undefined) continue;
    const blob = await store.getBlob(UPLOAD_NAMESPACE, id);
    const rec = blob ? (JSON.parse(blob.meta) as UploadFacts) : null;
    if (!blob || !rec || !isOwner(rec.owner, owner)) {
      missing.push('An upload this message references is unknown or has expired; upload it again.');
      continue;
    }
    uploads.push(toAttachment(rec.type, blob.bytes, rec.name || part.label));
  }
  return { uploads, missing };
}
