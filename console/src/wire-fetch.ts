import type { ClientExchange, TurnHooks } from './model.ts';

/**
 * The path the gateway is mounted under ('' at the root), from the page's `nlgate-base` meta element
 * (src/console/page.ts): nlgate used as a library answers under its host application's prefix.
 */
export const GATEWAY_BASE = document.querySelector('meta[name="nlgate-base"]')?.getAttribute('content') ?? '';

/** A gateway path (`/agents/x/ask`) as this page must call it: under the mount path. */
export const gatewayUrl = (path: string): string => `${GATEWAY_BASE}${path}`;

/** The header that asks the gateway to keep this call's upstream exchanges for the wire view. */
export const CAPTURE_HEADER = 'X-Nlgate-Capture';

/**
 * fetch() that records the exchange exactly as sent and received (the client wire) and reads the
 * body as a stream, calling `onText` for every piece (SSE arrives live).
 */
export async function wireFetch(
  hooks: TurnHooks,
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string },
  onText?: (piece: string) => void,
): Promise<{ status: number; headers: Headers; text: string }> {
  url = gatewayUrl(url);
  const headers: Record<string, string> = { ...(init.headers ?? {}), [CAPTURE_HEADER]: '1' };
  if (hooks.authorization) headers.Authorization = hooks.authorization;
  const shown = { ...headers };
  if (shown.Authorization) shown.Authorization = 'Bearer [hidden]';
  const ex = hooks.exchange({ method: init.method, url, requestHeaders: shown, ...(init.body !== undefined ? { requestBody: init.body } : {}), responseBody: '' } as ClientExchange);
  let res: Response;
  try {
    res = await fetch(url, { method: init.method, headers, ...(init.body !== undefined ? { body: init.body } : {}), signal: hooks.signal });
  } catch (err) {
    ex.error = String(err);
    hooks.changed();
    throw err;
  }
  ex.status = res.status;
  ex.responseHeaders = {};
  res.headers.forEach((v, k) => (ex.responseHeaders![k] = v));
  ex.requestId = res.headers.get('x-request-id') ?? undefined;
  hooks.changed();
  let text = '';
  if (res.body) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      ex.responseBody += value;
      hooks.changed();
      onText?.(value);
    }
  }
  return { status: res.status, headers: res.headers, text };
}

/** Splits an SSE text stream into events (`event`, `data` joined), keeping an incomplete tail. */
export function sseParser(onEvent: (event: string, data: string) => void): (piece: string) => void {
  let buf = '';
  return (piece) => {
    buf += piece.replace(/\r\n?/g, '\n');
    let at: number;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, at);
      buf = buf.slice(at + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) onEvent(event, data.join('\n'));
    }
  };
}

/** Parses JSON, or returns undefined. */
export function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Waits, unless aborted. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
