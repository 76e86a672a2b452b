import { createHash } from 'node:crypto';
import type { ClientSession } from '../../src/core/agent.ts';
import { GatewayError } from '../../src/base/errors.ts';
import type { Logger } from '../../src/base/logger.ts';
import { transportOf, type McpAdapterConfig } from './config.ts';
import { UpstreamConnection, type ConnectionOptions } from './connection.ts';

/** Sessions kept per forwarded credential (forwardCredentials agents), least recently used dropped. */
const MAX_CREDENTIAL_SESSIONS = 16;
/** Client sessions remembered on a shared upstream session (for list changes and logs between calls). */
const MAX_SHARED_LISTENERS = 256;
/** Subscriptions kept for shared upstream sessions: per client session, and in all (a session may expire unannounced). */
const MAX_SUBSCRIPTIONS_PER_SESSION = 64;
const MAX_SUBSCRIPTIONS = 4096;

type Notification = { method: string; params?: Record<string, unknown> };

/** One client session's own upstream session. */
interface Dedicated {
  conn: UpstreamConnection;
  session: ClientSession;
  timer: NodeJS.Timeout;
  /** The tools this upstream session lists (its client's capabilities decide), until it says they changed. */
  tools?: Promise<unknown>;
}

/** The capabilities declared upstream for a client session: only what that client itself declared. */
export function mirroredCapabilities(client: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (client.elicitation !== undefined) out.elicitation = client.elicitation;
  if (client.sampling !== undefined) out.sampling = client.sampling;
  return out;
}

/**
 * The upstream sessions of one `mcp` agent (MCP "Lifecycle"): one shared session (or one per
 * forwarded credential) for calls without a client session, and — for HTTP/SSE upstreams — one
 * upstream session per client session, created on first use, closed when the client session ends,
 * after `idleMs`, or when its principal or the agent is over its bound (least recently used first).
 * Messages an upstream sends between calls go to the client sessions they belong to: its own
 * client for a dedicated session; for a shared one, subscribers of the resource, and every client
 * session seen for list changes and logs.
 */
export class UpstreamSessions {
  private readonly shared = new Map<string, UpstreamConnection>();
  private readonly dedicated = new Map<string, Dedicated>();
  /** Client sessions that used a shared upstream session, most recent last. */
  private readonly sharedListeners = new Map<string, ClientSession>();
  /** Resource subscriptions on shared upstream sessions: URI → client sessions. */
  private readonly sharedSubscriptions = new Map<string, Map<string, ClientSession>>();

  constructor(
    private readonly config: McpAdapterConfig,
    private readonly base: Omit<ConnectionOptions, 'authorization' | 'capabilities' | 'onOutOfCall'>,
    private readonly log: Logger,
  ) {}

  /** Whether client sessions get upstream sessions of their own with this upstream. */
  private perClient(): boolean {
    return this.config.upstreamSessions.perClient && transportOf(this.config) !== 'stdio';
  }

  /** The upstream session a call uses. */
  forCall(ctx: { session?: ClientSession; credentials?: { authorization?: string } } | undefined, forwardCredentials: boolean): UpstreamConnection {
    const auth = forwardCredentials ? ctx?.credentials?.authorization : undefined;
    const session = ctx?.session;
    if (session && this.perClient()) return this.dedicatedFor(session, auth);
    if (session) this.remember(session);
    return this.sharedFor(auth);
  }

  /**
   * What the client session's own upstream session lists, computed once by `list` and kept until the
   * upstream says its tools changed; undefined when the session has no upstream session of its own.
   */
  toolsFor<T>(session: ClientSession, list: (conn: UpstreamConnection) => Promise<T>): Promise<T> | undefined {
    if (!this.perClient()) return undefined;
    this.dedicatedFor(session, undefined);
    const entry = this.dedicated.get(session.id)!;
    const pending = (entry.tools ??= list(entry.conn).catch((err: unknown) => {
      delete entry.tools;
      throw err;
    }));
    return pending as Promise<T>;
  }

  /** `resources/subscribe` bookkeeping for a shared upstream session: true when the upstream must be told. */
  subscribe(uri: string, session: ClientSession | undefined): boolean {
    if (!session || this.dedicated.has(session.id)) return true;
    let mine = 0;
    let all = 0;
    for (const subs of this.sharedSubscriptions.values()) {
      all += subs.size;
      if (subs.has(session.id)) mine++;
    }
    if (!this.sharedSubscriptions.get(uri)?.has(session.id) && (mine >= MAX_SUBSCRIPTIONS_PER_SESSION || all >= MAX_SUBSCRIPTIONS)) {
      throw new GatewayError('RATE_LIMITED', 'Too many resource subscriptions: unsubscribe from some first');
    }
    const subs = this.sharedSubscriptions.get(uri) ?? new Map<string, ClientSession>();
    const first = subs.size === 0;
    subs.set(session.id, session);
    this.sharedSubscriptions.set(uri, subs);
    return first;
  }

  /** `resources/unsubscribe` bookkeeping: true when the upstream must be told (no subscriber left). */
  unsubscribe(uri: string, session: ClientSession | undefined): boolean {
    if (!session || this.dedicated.has(session.id)) return true;
    const subs = this.sharedSubscriptions.get(uri);
    if (!subs?.delete(session.id)) return false;
    if (subs.size > 0) return false;
    this.sharedSubscriptions.delete(uri);
    return true;
  }

  /** The client session ended: its upstream session is closed and its subscriptions forgotten. */
  async end(sessionId: string): Promise<void> {
    this.sharedListeners.delete(sessionId);
    for (const [uri, subs] of this.sharedSubscriptions) if (subs.delete(sessionId) && subs.size === 0) this.sharedSubscriptions.delete(uri);
    const entry = this.dedicated.get(sessionId);
    if (!entry) return;
    this.dedicated.delete(sessionId);
    clearTimeout(entry.timer);
    await entry.conn.close();
  }

  /** How many upstream sessions are open for client sessions (for bounds checks and tests). */
  dedicatedCount(owner?: string): number {
    return [...this.dedicated.values()].filter((d) => owner === undefined || d.session.owner === owner).length;
  }

  async closeAll(): Promise<void> {
    const conns = [...this.shared.values(), ...[...this.dedicated.values()].map((d) => (clearTimeout(d.timer), d.conn))];
    this.shared.clear();
    this.dedicated.clear();
    await Promise.all(conns.map((c) => c.close()));
  }

  // ---- internals ----

  private sharedFor(auth: string | undefined): UpstreamConnection {
    const key = auth ? createHash('sha256').update(auth).digest('base64url') : '';
    let conn = this.shared.get(key);
    if (conn) {
      this.shared.delete(key); // re-inserted below: Map order is the LRU order
    } else {
      conn = new UpstreamConnection({ ...this.base, ...(auth ? { authorization: auth } : {}), onOutOfCall: (n) => this.fromShared(n) });
    }
    this.shared.set(key, conn);
    if (this.shared.size > MAX_CREDENTIAL_SESSIONS) {
      const [oldest, old] = this.shared.entries().next().value as [string, UpstreamConnection];
      this.shared.delete(oldest);
      void old.close();
    }
    return conn;
  }

  private dedicatedFor(session: ClientSession, auth: string | undefined): UpstreamConnection {
    const { idleMs, perPrincipal, max } = this.config.upstreamSessions;
    const existing = this.dedicated.get(session.id);
    if (existing) {
      this.dedicated.delete(session.id); // LRU order
      existing.timer.refresh();
      existing.session = session;
      this.dedicated.set(session.id, existing);
      return existing.conn;
    }
    // Over a bound: the least recently used session of this principal (then of anyone) gives way.
    const mine = [...this.dedicated.values()].filter((d) => d.session.owner === session.owner);
    if (mine.length >= perPrincipal) this.evict(mine[0]!.session.id, 'per-principal bound');
    if (this.dedicated.size >= max) this.evict(this.dedicated.keys().next().value as string, 'agent bound');
    const conn = new UpstreamConnection({
      ...this.base,
      ...(auth ? { authorization: auth } : {}),
      capabilities: mirroredCapabilities(session.capabilities),
      onOutOfCall: (n) => {
        const entry = this.dedicated.get(session.id);
        if (n.method === 'notifications/tools/list_changed' && entry) delete entry.tools;
        entry?.session.notify(n);
      },
    });
    const timer = setTimeout(() => void this.end(session.id), idleMs);
    timer.unref();
    this.dedicated.set(session.id, { conn, session, timer });
    return conn;
  }

  private evict(sessionId: string, why: string): void {
    this.log.info({ why }, 'closing the upstream session of a client session');
    void this.end(sessionId);
  }

  private remember(session: ClientSession): void {
    this.sharedListeners.delete(session.id);
    this.sharedListeners.set(session.id, session);
    if (this.sharedListeners.size > MAX_SHARED_LISTENERS) this.sharedListeners.delete(this.sharedListeners.keys().next().value as string);
  }

  /** A shared upstream session's message between calls: to the subscribers of a resource, else to every session seen. */
  private fromShared(n: Notification): void {
    if (n.method === 'notifications/resources/updated') {
      for (const s of this.sharedSubscriptions.get(String(n.params?.uri))?.values() ?? []) s.notify(n);
      return;
    }
    for (const s of this.sharedListeners.values()) s.notify(n);
  }
}

