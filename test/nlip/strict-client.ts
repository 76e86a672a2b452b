/**
 * An NLIP client for tests, as strict as the reference Python client (interop.md "NLIP"): it raises
 * on any non-2xx status, on a reply missing `format`/`subformat`/`content` (message or submessage),
 * on `content` that is not a string or an object, and on an unknown submessage format. It goes further
 * than the reference on what the gateway promises to emit: lowercase keys and no nulls. Like the
 * reference client it remembers the conversation token (subformat exactly `conversation`) and adds
 * it to every later message that carries none.
 */

const FORMATS = new Set(['text', 'token', 'structured', 'binary', 'location', 'error', 'generic']);

export interface WirePart {
  format: string;
  subformat: string;
  content: string | Record<string, unknown>;
  label?: string;
}
export interface WireMessage extends WirePart {
  messagetype?: string;
  control?: boolean;
  submessages?: WirePart[];
}

export class StrictClientError extends Error {}

function checkPart(p: unknown, where: string, isSub: boolean): asserts p is WirePart {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new StrictClientError(`${where}: not an object`);
  const o = p as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    if (k !== k.toLowerCase()) throw new StrictClientError(`${where}.${k}: key not lowercase`);
    if (v === null) throw new StrictClientError(`${where}.${k}: null`);
  }
  for (const k of ['format', 'subformat', 'content']) if (!(k in o)) throw new StrictClientError(`${where}.${k}: missing`);
  if (typeof o.format !== 'string' || typeof o.subformat !== 'string') throw new StrictClientError(`${where}: format/subformat not strings`);
  if (isSub && !FORMATS.has(o.format)) throw new StrictClientError(`${where}.format: unknown format ${o.format}`);
  const c = o.content;
  if (typeof c !== 'string' && (typeof c !== 'object' || c === null || Array.isArray(c))) {
    throw new StrictClientError(`${where}.content: must be a string or an object`);
  }
  if ('label' in o && typeof o.label !== 'string') throw new StrictClientError(`${where}.label: not a string`);
}

/** Validates a reply body as the reference client would (and a little more). */
export function checkReply(body: unknown): WireMessage {
  checkPart(body, 'reply', false);
  const m = body as WireMessage;
  if (m.submessages !== undefined) {
    if (!Array.isArray(m.submessages)) throw new StrictClientError('reply.submessages: not an array');
    m.submessages.forEach((s, i) => checkPart(s, `reply.submessages.${i}`, true));
  }
  return m;
}

export class StrictNlipClient {
  conversationToken: string | undefined;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** Posts a message (following redirects), checks the reply, remembers the conversation token. */
  async send(msg: WireMessage): Promise<WireMessage> {
    const subs = [...(msg.submessages ?? [])];
    if (this.conversationToken && !subs.some((s) => s.format === 'token' && s.subformat === 'conversation')) {
      subs.push({ format: 'token', subformat: 'conversation', content: this.conversationToken });
    }
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.headers },
      body: JSON.stringify({ ...msg, ...(subs.length > 0 ? { submessages: subs } : {}) }),
      redirect: 'follow',
    });
    if (!res.ok) throw new StrictClientError(`HTTP ${res.status}: ${await res.text()}`);
    const reply = checkReply(await res.json());
    const token = reply.submessages?.find((s) => s.format === 'token' && s.subformat === 'conversation')?.content;
    if (typeof token === 'string') this.conversationToken = token;
    return reply;
  }

  /** Sends one English text question. */
  ask(text: string, extra: WirePart[] = []): Promise<WireMessage> {
    return this.send({ format: 'text', subformat: 'english', content: text, ...(extra.length > 0 ? { submessages: extra } : {}) });
  }
}

/** The parts of a reply in order (first submessage included). */
export function partsOf(m: WireMessage): WirePart[] {
  return [{ format: m.format, subformat: m.subformat, content: m.content }, ...(m.submessages ?? [])];
}

/** The JSON values of a reply's `structured`/`json` parts, with labels. */
export function jsonOf(m: WireMessage): Array<{ label?: string; value: unknown }> {
  return (m.submessages ?? [])
    .filter((s) => s.format === 'structured' && s.subformat === 'json')
    .map((s) => ({ ...(s.label ? { label: s.label } : {}), value: typeof s.content === 'string' ? JSON.parse(s.content) : s.content }));
}
