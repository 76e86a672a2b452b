/** Splits a configured URL into what is dialled and what may be shown (docs/upstream-policy.md). */
export interface ParsedUpstreamUrl {
  /** `scheme://host:port`, the pool key and the redirect policy's unit (RFC 6454 origin). */
  origin: string;
  /** Path and query. */
  path: string;
  /** The URL without user-info: the only form that may appear in logs, errors and events. */
  display: string;
  /** `Basic` credentials from the URL's user-info, if any (RFC 9110 11.2, RFC 7617). */
  basicAuth?: string;
}

/** Parses an upstream URL (from config, or a same-origin redirect target) and strips its user-info. */
export function parseUpstreamUrl(url: string | URL): ParsedUpstreamUrl {
  const u = typeof url === 'string' ? new URL(url) : url;
  const path = `${u.pathname}${u.search}`;
  const parsed: ParsedUpstreamUrl = { origin: u.origin, path, display: `${u.origin}${path}` };
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    parsed.basicAuth = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  return parsed;
}

/** A URL as it may be logged: no user-info, whatever the input (unparseable input becomes a placeholder). */
export function displayUrl(url: string | URL): string {
  try {
    return parseUpstreamUrl(url).display;
  } catch {
    return '[invalid url]';
  }
}

/** Removes user-info from every URL inside a text (an error message that quotes a URL), for logs. */
export function redactUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1');
}
