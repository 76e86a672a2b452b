/**
 * Reading a request's header fields for less than `Headers.get` costs on Node (issue 25).
 *
 * @hono/node-server's request headers test every name against a regular expression and lower-case
 * it on every call; for the fields Node keeps only once (Host, Content-Type, Authorization…) they
 * scan every raw header line again, and the first read of any other field makes Node build its own
 * `headers` object. A request reads ten to fifteen fields on its way through the gateway: under
 * callgrind that was 14 thousand instructions of an NLWeb pass-through and 25 thousand of an MCP
 * session's call. Here the raw lines are read once into a map, and each read is one lookup.
 *
 * Only the standalone server (src/server.ts) adopts a request's lines, since only there is the
 * `Request` certainly the one @hono/node-server made from those lines a moment ago. Inside a host
 * application (src/lib) a host middleware may have set a header on it, so every read goes to its
 * `Headers` as before. `request-headers.test.ts` holds the two to the same answers.
 */

/** The lines a standalone server read off the socket, by lower-case name (set by `adoptSocketHeaders`). */
const SOCKET_FIELDS = Symbol('nlgate.socketFields');

type WithFields = Request & { [SOCKET_FIELDS]?: Map<string, string> };

/** HTTP whitespace (Fetch "HTTP whitespace"): tab, LF, CR, space. */
const isHttpWhitespace = (code: number) => code === 9 || code === 10 || code === 13 || code === 32;
/** A value `Headers` refuses (Fetch "header value"): the reader then leaves the request to `Headers`. */
const FORBIDDEN_VALUE = /[\0\r\n]/;

const hasEdgeWhitespace = (value: string) => value !== '' && (isHttpWhitespace(value.charCodeAt(0)) || isHttpWhitespace(value.charCodeAt(value.length - 1)));

function trimHttpWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * Fields Node keeps one line of (`IncomingMessage.headers` drops the repeats), so that
 * @hono/node-server joins their lines itself, each trimmed; the others it takes as Node joined them
 * and trims the whole. The two differ only at an empty or space-edged line, and the reader keeps
 * that difference too: its answers are `Headers.get`'s, byte for byte.
 */
const ONE_LINE_FIELDS = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent', 'set-cookie', '__proto__',
]);

/**
 * The fields of Node's `rawHeaders` (name, value, name, value…) as the request's `Headers` answers
 * them (Fetch "combine", RFC 9110 5.3): by lower-case name, repeated lines joined with ", " (Cookie
 * with "; "), trimmed of HTTP whitespace, HTTP/2 pseudo-headers left out. Undefined when a value
 * holds a character `Headers` refuses, so that the request keeps its own behaviour for it.
 */
export function socketFields(rawHeaders: readonly string[]): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  // Node hands values trimmed already, so the closing pass is for repeated lines (and other callers).
  let trimLater = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.charCodeAt(0) === 58 /* ':' */) continue;
    const raw = rawHeaders[i + 1]!;
    if (FORBIDDEN_VALUE.test(raw)) return undefined;
    const lower = name.toLowerCase();
    const oneLine = ONE_LINE_FIELDS.has(lower);
    const value = oneLine ? trimHttpWhitespace(raw) : raw;
    const before = fields.get(lower);
    if (!oneLine) trimLater ||= before !== undefined || hasEdgeWhitespace(value);
    fields.set(lower, before === undefined ? value : before + (lower === 'cookie' ? '; ' : ', ') + value);
  }
  if (trimLater) for (const [name, value] of fields) if (!ONE_LINE_FIELDS.has(name)) fields.set(name, trimHttpWhitespace(value));
  return fields;
}

/** Attaches the fields of the lines `req` was made from, so that `requestHeader` reads them (standalone server only). */
export function adoptSocketHeaders(req: Request, rawHeaders: readonly string[] | undefined): void {
  if (!rawHeaders) return;
  const fields = socketFields(rawHeaders);
  if (fields) (req as WithFields)[SOCKET_FIELDS] = fields;
}

/** The value of header `name` (lower case) as `req.headers.get` answers it, undefined when absent. */
export function requestHeader(req: Request, name: Lowercase<string>): string | undefined {
  const fields = (req as WithFields)[SOCKET_FIELDS];
  if (fields !== undefined) return fields.get(name);
  return req.headers.get(name) ?? undefined;
}
