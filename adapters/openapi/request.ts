/**
 * Tool arguments as one HTTP request (OpenAPI "Parameter Object" serialization: path `simple`,
 * query `form` (exploded by default), `deepObject`, `spaceDelimited`, `pipeDelimited`; header
 * `simple`; cookie `form`), and the configured credentials the spec's security schemes ask for.
 * The URL is the configured base URL plus the operation's path: an argument can change neither the
 * origin nor leave the base path (each path value is one encoded segment; `.` and `..`, which
 * every URL parser reads as dot-segments even percent-encoded, are refused).
 */
import { GatewayError } from '../../src/base/errors.ts';
import type { Operation, OperationParam } from './operations.ts';

export interface HttpCall {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value as text: strings as they are, other scalars as JSON (numbers, booleans, null). */
function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** One path segment, percent-encoded; `.` and `..` cannot be sent (WHATWG URL reads `%2E%2E` as `..` too). */
export function pathSegment(v: string): string {
  if (v === '.' || v === '..') throw new GatewayError('SCHEMA_ERROR', 'A path parameter cannot be "." or ".."');
  return encodeURIComponent(v);
}

function simple(v: unknown, explode: boolean, encode: (s: string) => string): string {
  if (Array.isArray(v)) return v.map((x) => encode(scalar(x))).join(',');
  if (isObj(v)) return Object.entries(v).map(([k, x]) => (explode ? `${encode(k)}=${encode(scalar(x))}` : `${encode(k)},${encode(scalar(x))}`)).join(',');
  return encode(scalar(v));
}

function addQuery(q: URLSearchParams, p: OperationParam, v: unknown): void {
  const style = p.style ?? 'form';
  const explode = p.explode ?? style === 'form';
  if (style === 'deepObject' && isObj(v)) {
    for (const [k, x] of Object.entries(v)) q.append(`${p.name}[${k}]`, scalar(x));
    return;
  }
  if (Array.isArray(v)) {
    if (explode) for (const x of v) q.append(p.name, scalar(x));
    else q.append(p.name, v.map(scalar).join(style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ','));
    return;
  }
  if (isObj(v)) {
    if (explode) for (const [k, x] of Object.entries(v)) q.append(k, scalar(x));
    else q.append(p.name, Object.entries(v).flatMap(([k, x]) => [k, scalar(x)]).join(','));
    return;
  }
  q.append(p.name, scalar(v));
}

/** A header value HTTP can carry: no control characters (a CR/LF would split the request), Latin-1 only. */
function headerValue(p: OperationParam, value: string): string {
  if (/[^\t\u0020-\u007e\u0080-\u00ff]/.test(value)) throw new GatewayError('SCHEMA_ERROR', `Argument "${p.key}" cannot be sent as a header: it contains control or non-Latin-1 characters`);
  return value;
}

/** `base` + the operation's path, with the path parameters filled in. */
function urlOf(base: URL, op: Operation, args: Obj): URL {
  const values = new Map(op.params.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  const path = op.path.replace(/\{([^{}]+)\}/g, (_m, name: string) => {
    const p = values.get(name);
    const v = p ? args[p.key] : undefined;
    if (v === undefined) throw new GatewayError('SCHEMA_ERROR', `Operation "${op.operationId}" needs the path parameter "${name}"`);
    return simple(v, p!.explode ?? false, pathSegment);
  });
  const prefix = base.pathname.replace(/\/+$/, '');
  const url = new URL(`${base.origin}${prefix}${path}`);
  // Encoded values cannot do this; the check keeps it so whatever the spec's path holds.
  if (url.origin !== base.origin || !url.pathname.startsWith(prefix)) throw new GatewayError('SCHEMA_ERROR', `Operation "${op.operationId}": the arguments would leave the API's base URL`);
  return url;
}

/**
 * The HTTP request for validated arguments. `credentials` are the configured ones (scheme name →
 * value) and `schemes` the spec's `components.securitySchemes`; the first security alternative whose
 * schemes are all configured is applied.
 */
export function buildRequest(op: Operation, args: Obj, base: URL, auth: { credentials: Record<string, string>; schemes: Obj }): HttpCall {
  const url = urlOf(base, op, args);
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const p of op.params) {
    const v = args[p.key];
    if (v === undefined || p.in === 'path') continue;
    if (p.in === 'query') addQuery(url.searchParams, p, v);
    else if (p.in === 'header') headers[p.name.toLowerCase()] = headerValue(p, simple(v, p.explode ?? false, (s) => s));
    else cookies.push(`${p.name}=${encodeURIComponent(simple(v, false, (s) => s))}`);
  }
  applySecurity(op, auth, url, headers, cookies);
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  const call: HttpCall = { url, method: op.method, headers: { accept: 'application/json', ...headers } };
  if (op.body && args[op.body.key] !== undefined) {
    const value = args[op.body.key];
    if (op.body.mediaType === 'json') {
      call.headers['content-type'] = 'application/json';
      call.body = JSON.stringify(value);
    } else {
      call.headers['content-type'] = 'application/x-www-form-urlencoded';
      const form = new URLSearchParams();
      if (isObj(value)) for (const [k, x] of Object.entries(value)) for (const item of Array.isArray(x) ? x : [x]) form.append(k, scalar(item));
      call.body = form.toString();
    }
  }
  return call;
}

function applySecurity(op: Operation, auth: { credentials: Record<string, string>; schemes: Obj }, url: URL, headers: Record<string, string>, cookies: string[]): void {
  const alternatives = op.security ?? [];
  const usable = alternatives.find((alt) => {
    const names = Object.keys(alt);
    return names.length > 0 && names.every((n) => Object.hasOwn(auth.credentials, n) && isObj(auth.schemes[n]));
  });
  if (!usable) return;
  for (const name of Object.keys(usable)) {
    const scheme = auth.schemes[name] as Obj;
    const value = auth.credentials[name]!;
    if (scheme.type === 'apiKey' && typeof scheme.name === 'string') {
      if (scheme.in === 'query') url.searchParams.set(scheme.name, value);
      else if (scheme.in === 'cookie') cookies.push(`${scheme.name}=${encodeURIComponent(value)}`);
      else headers[scheme.name.toLowerCase()] = value;
    } else if (scheme.type === 'http' && typeof scheme.scheme === 'string' && scheme.scheme.toLowerCase() === 'basic') {
      headers.authorization = `Basic ${Buffer.from(value).toString('base64')}`;
    } else if (scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect') {
      headers.authorization = `Bearer ${value}`;
    }
  }
}
