/**
 * Redaction of captured upstream exchanges (issue 14: "secrets redacted"): credential headers,
 * configured header values, cookies and tokens never leave the gateway through the console.
 */

export const REDACTED = '[redacted]';

/** Header names that always carry credentials or session secrets. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|mcp-session-id)$|token|secret|password|api[-_]?key|auth/i;
/** JSON keys whose values are secrets wherever they appear in a body. */
const SECRET_KEY = /^(authorization|password|secret|client_secret|api_?key|access_token|refresh_token|id_token|token|promise_token|session_?id|cookie)$/i;
/** URL query parameters that carry secrets. */
const SECRET_PARAM = /token|key|secret|password|auth|sig/i;

export interface Redactor {
  headers(h: Record<string, string>): Record<string, string>;
  url(u: string): string;
  body(text: string): string;
}

/**
 * Builds a redactor. `extraHeaderNames` are the header names the config sets for agents (their values
 * are secrets too); every secret value seen in a header is also scrubbed from bodies.
 */
export function createRedactor(extraHeaderNames: Iterable<string> = []): Redactor {
  const configured = new Set([...extraHeaderNames].map((n) => n.toLowerCase()));
  const isSecretHeader = (name: string) => configured.has(name.toLowerCase()) || SECRET_HEADER.test(name);
  return {
    headers(h) {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(h)) out[k] = isSecretHeader(k) ? REDACTED : v;
      return out;
    },
    url(u) {
      try {
        const url = new URL(u);
        url.username = '';
        url.password = '';
        for (const key of [...url.searchParams.keys()]) if (SECRET_PARAM.test(key)) url.searchParams.set(key, REDACTED);
        return url.toString();
      } catch {
        return u;
      }
    },
    body(text) {
      return redactBodyText(text);
    },
  };
}

/** Scrubs a body: JSON (or JSON per SSE `data:` line) gets secret keys and NLIP token parts replaced. */
export function redactBodyText(text: string): string {
  const whole = tryJson(text);
  if (whole !== undefined) return JSON.stringify(redactJson(whole));
  // SSE or NDJSON: redact each data line that holds JSON.
  return text
    .split('\n')
    .map((line) => {
      const m = /^(data:\s?)(.*)$/.exec(line);
      const json = tryJson(m ? m[2]! : line);
      if (json === undefined || typeof json !== 'object' || json === null) return line;
      return (m ? m[1] : '') + JSON.stringify(redactJson(json));
    })
    .join('\n');
}

function tryJson(text: string): unknown {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** Replaces secret values in a parsed JSON value (NLIP ECMA-430 6.2 `token` parts, credential keys). */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const nlipToken = obj.format === 'token' && typeof obj.content === 'string';
  for (const [k, v] of Object.entries(obj)) {
    if ((nlipToken && k === 'content') || (SECRET_KEY.test(k) && typeof v === 'string')) out[k] = REDACTED;
    else out[k] = redactJson(v);
  }
  return out;
}
