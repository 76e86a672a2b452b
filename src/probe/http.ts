import { UpstreamClient } from '../core/upstream/index.ts';

/** The probe's requests go through the gateway's own upstream policy (same-origin redirects, size caps). */
const probeFetch = new UpstreamClient({ agent: 'probe', kind: 'probe' }).fetchFunction();

/** What one probe request saw: status, content type and (for JSON or text) the body. */
export interface Seen {
  status: number;
  contentType: string;
  headers: Headers;
  text: string;
}

/** Options every probe request shares. */
export interface ProbeHttp {
  timeoutMs: number;
}

/** How much of an answer to read: stop once `stopWhen` holds; skip the body unless `readIf` holds. */
export interface ReadRule {
  stopWhen?: (text: string) => boolean;
  readIf?: (contentType: string) => boolean;
}

/** Most bytes a probe reads from one answer: it only needs to recognise a shape. */
const MAX_BYTES = 256 * 1024;

/**
 * One probe request through the shared upstream client: a redirect is followed only within the
 * origin probed (a probe is never led elsewhere); a stream is read only up to `stopWhen` or
 * MAX_BYTES, then cancelled.
 */
export async function probeRequest(url: string, init: RequestInit, http: ProbeHttp, read: ReadRule = {}): Promise<Seen | undefined> {
  const { stopWhen, readIf = () => true } = read;
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(), http.timeoutMs);
  try {
    const res = await probeFetch(url, { ...init, signal: abort.signal });
    const contentType = res.headers.get('content-type') ?? '';
    let text = '';
    if (res.body && !readIf(contentType)) await res.body.cancel().catch(() => undefined);
    else if (res.body) {
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        while (text.length < MAX_BYTES && !stopWhen?.(text)) {
          const { value, done } = await reader.read();
          if (done) break;
          text += value;
        }
      } finally {
        await reader.cancel().catch(() => undefined);
      }
    }
    return { status: res.status, contentType, headers: res.headers, text };
  } catch {
    return undefined; // unreachable, timed out or reset: this protocol is not spoken here
  } finally {
    clearTimeout(deadline);
  }
}

/** Parses JSON, or undefined. */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The `data:` payloads of an SSE text, parsed as JSON where they are. */
export function sseData(text: string): unknown[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:'))
    .map((l) => jsonOf(l.slice(5).trim()))
    .filter((d) => d !== undefined);
}

/** The URL without a trailing slash and without one of the given endpoint suffixes. */
export function baseOf(url: string, suffixes: readonly string[]): string {
  let u = url.replace(/\/+$/, '');
  for (const s of suffixes) if (u.endsWith(s)) u = u.slice(0, -s.length);
  return u;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
