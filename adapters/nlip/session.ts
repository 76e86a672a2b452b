import type { CallContext } from '../../src/core/agent.ts';
import { isConversationToken, type NlipPart } from '../../src/protocol/nlip/index.ts';

/**
 * What the adapter keeps per gateway conversation and upstream agent (interop.md "As a client of an
 * NLIP upstream"): the upstream's cookies (some servers keep sessions in a cookie) and the
 * conversation tokens it handed out (ECMA-430 6.2: echoed on every later message). Kept in the
 * conversation's attrs, so any replica continues the conversation; never shown to a client.
 */

const MAX_COOKIES = 32;
const MAX_COOKIE_BYTES = 4096;
const MAX_TOKENS = 8;

/** A conversation token as the upstream sent it (subformat and content exactly). */
export interface StoredToken {
  subformat: string;
  content: NlipPart['content'];
}

function parseJson<T>(text: string | undefined, fallback: T): T {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** A session as plain data: it rides inside the promise token the core stores (agent.ts). */
export interface SessionSnapshot {
  cookies: Record<string, string>;
  tokens: StoredToken[];
}

/** The upstream session of one conversation with one NLIP agent. */
export class UpstreamSession {
  private readonly cookies: Map<string, string>;
  private tokens: StoredToken[];
  private dirty = false;

  private constructor(
    private readonly keys: { cookies: string; tokens: string },
    attrs: Record<string, string>,
  ) {
    const jar = parseJson<unknown>(attrs[keys.cookies], {});
    this.cookies = new Map(Object.entries(typeof jar === 'object' && jar !== null ? jar : {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const list = parseJson<unknown[]>(attrs[keys.tokens], []);
    this.tokens = (Array.isArray(list) ? list : []).filter(
      (t): t is StoredToken => typeof t === 'object' && t !== null && typeof (t as StoredToken).subformat === 'string' && (t as StoredToken).content !== undefined,
    );
  }

  /**
   * Loads the session of `agent` from the call's conversation; without one, from `fallback`
   * (a snapshot), else empty.
   */
  static load(ctx: CallContext, agent: string, fallback?: SessionSnapshot): UpstreamSession {
    const keys = { cookies: `nlip:${agent}:cookies`, tokens: `nlip:${agent}:tokens` };
    const attrs = ctx.conversation?.attrs;
    if (attrs && (attrs[keys.cookies] !== undefined || attrs[keys.tokens] !== undefined)) return new UpstreamSession(keys, attrs);
    if (fallback) {
      return new UpstreamSession(keys, { [keys.cookies]: JSON.stringify(fallback.cookies), [keys.tokens]: JSON.stringify(fallback.tokens) });
    }
    return new UpstreamSession(keys, {});
  }

  /** The session as plain data. */
  snapshot(): SessionSnapshot {
    return { cookies: Object.fromEntries(this.cookies), tokens: [...this.tokens] };
  }

  /** True when the upstream has given this conversation a token (it keeps the context itself). */
  get hasTokens(): boolean {
    return this.tokens.length > 0;
  }

  /** 6.2 The token parts to echo on the next message. */
  tokenParts(): NlipPart[] {
    return this.tokens.map((t) => ({ format: 'token', subformat: t.subformat, content: t.content }));
  }

  /** The `Cookie` header value, or undefined when the jar is empty. */
  cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Takes `Set-Cookie` headers (RFC 6265 5.2, name/value and expiry only: one origin, one path). */
  takeCookies(headers: { getSetCookie(): string[] }): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0 || line.length > MAX_COOKIE_BYTES) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => {
        const [k = '', v = ''] = a.split('=').map((s) => s.trim());
        if (k.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (k.toLowerCase() === 'expires') return Date.parse(v) < Date.now();
        return false;
      });
      if (expired) this.dirty = this.cookies.delete(name) || this.dirty;
      else if (this.cookies.get(name) !== value && (this.cookies.has(name) || this.cookies.size < MAX_COOKIES)) {
        this.cookies.set(name, value);
        this.dirty = true;
      }
    }
  }

  /** 6.2 Keeps the conversation tokens of a reply (the upstream echoes ours and may add its own). */
  takeTokens(parts: NlipPart[]): void {
    const received = parts.filter(isConversationToken).slice(0, MAX_TOKENS);
    if (received.length === 0) return;
    const next = received.map((p) => ({ subformat: p.subformat, content: p.content }));
    if (JSON.stringify(next) !== JSON.stringify(this.tokens)) {
      this.tokens = next;
      this.dirty = true;
    }
  }

  /** Persists what changed into the conversation (no-op without a conversation). */
  async save(ctx: CallContext): Promise<void> {
    if (!this.dirty || !ctx.setConversationAttr) return;
    await ctx.setConversationAttr(this.keys.cookies, JSON.stringify(Object.fromEntries(this.cookies)));
    await ctx.setConversationAttr(this.keys.tokens, JSON.stringify(this.tokens));
    this.dirty = false;
  }
}
