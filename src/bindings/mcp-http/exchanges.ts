import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Store } from '../../store/store.ts';

/** The store topic a 2025 session's answers to server requests travel on (to whichever replica asked). */
export function answersTopic(sessionId: string): string {
  return `mcp-answers:${sessionId}`;
}

/**
 * Registers `done` for when the HTTP response is over (sent or abandoned): on Node, the response's
 * own `close` (index.ts), which spares a second stream around every answer's body.
 */
export type OnSent = (done: () => void) => void;

/** One in-flight POST exchange of a 2025 session on this replica (an SDK transport, or a fast-path answer). */
export interface Exchange {
  /** A message the client posted for this session on any replica: an answer to a server request, or a cancel. */
  deliver(message: JSONRPCMessage): void;
  /** Ends the exchange without its answer (the session was DELETEd): its stream closes. */
  close(): void;
}

interface Open {
  exchanges: Set<Exchange>;
  /** The session's answers topic, heard while any of its exchanges is open here; resolves to its unsubscribe. */
  heard: Promise<() => Promise<void>>;
  /** Set once `heard` has resolved: an exchange can then enter without waiting for it. */
  live?: boolean;
  /** Set while no exchange is open: when the subscription ends (LINGER_MS). */
  linger?: NodeJS.Timeout;
}

/**
 * How long a session's subscription outlives its last open exchange: a client calling one tool after
 * another (most do) then costs no SUBSCRIBE and UNSUBSCRIBE per call (two Redis round trips, one of
 * them before the call could start). Messages for a session with no open exchange are dropped as
 * they would be unsubscribed.
 */
const LINGER_MS = 10_000;
/** At most this many sessions keep a subscription with no exchange open (the rest end at once). */
const MAX_LINGERING = 256;

/**
 * The exchanges of each 2025 session open on this replica (MCP Streamable HTTP "Sending Messages to
 * the Server"; no sticky sessions): what the client posts for a session — an answer to an
 * elicitation, a `notifications/cancelled` — may land on any replica and reaches them through the
 * store's topic. One subscription per session serves all its open exchanges, and outlives the last
 * for a while: an exchange then costs no subscription of its own (with Redis, a SUBSCRIBE and an
 * UNSUBSCRIBE).
 */
export class SessionExchanges {
  private readonly open = new Map<string, Open>();
  private lingering = 0;

  constructor(private readonly store: Store) {}

  /**
   * Opens an exchange of `sessionId`; resolves once the session's topic is heard here, with the
   * function that closes the exchange's registration (idempotent). Rejects when the store cannot
   * subscribe (the exchange is then not registered).
   */
  async enter(sessionId: string, exchange: Exchange): Promise<() => void> {
    let entry = this.open.get(sessionId);
    if (!entry) {
      const exchanges = new Set<Exchange>();
      const heard = this.store.onTopic(answersTopic(sessionId), (raw) => relay(exchanges, raw));
      const created: Open = { exchanges, heard };
      heard.then(
        () => void (created.live = true),
        // A subscription that failed is not kept: the next exchange of the session tries again.
        () => this.open.get(sessionId) === created && this.open.delete(sessionId),
      );
      this.open.set(sessionId, (entry = created));
    }
    const leave = this.register(sessionId, entry, exchange);
    try {
      await entry.heard;
    } catch (err) {
      leave();
      throw err;
    }
    return leave;
  }

  /**
   * `enter` without waiting, for a session whose topic is already heard here (every call of a
   * session after its first, while it lingers): the function that closes the registration, or
   * undefined when the session is not heard yet (then `enter`). One `await` fewer a call (issue 25).
   */
  enterHeard(sessionId: string, exchange: Exchange): (() => void) | undefined {
    const entry = this.open.get(sessionId);
    return entry?.live ? this.register(sessionId, entry, exchange) : undefined;
  }

  /** Adds an exchange to a session's open set (ending its linger); returns what removes it again. */
  private register(sessionId: string, opened: Open, exchange: Exchange): () => void {
    if (opened.linger) {
      clearTimeout(opened.linger);
      opened.linger = undefined;
      this.lingering--;
    }
    opened.exchanges.add(exchange);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      opened.exchanges.delete(exchange);
      if (opened.exchanges.size > 0 || this.open.get(sessionId) !== opened) return;
      if (this.lingering >= MAX_LINGERING) return this.unsubscribe(sessionId, opened);
      this.lingering++;
      opened.linger = setTimeout(() => {
        this.lingering--;
        this.unsubscribe(sessionId, opened);
      }, LINGER_MS).unref();
    };
    return leave;
  }

  /** Ends a session's subscription (its last exchange has left). */
  private unsubscribe(sessionId: string, opened: Open): void {
    if (this.open.get(sessionId) === opened) this.open.delete(sessionId);
    void opened.heard.then((stop) => stop()).catch(() => undefined);
  }

  /** Ends every exchange of a session open on this replica (DELETE, MCP "Session Management"). */
  closeAll(sessionId: string): void {
    for (const exchange of [...(this.open.get(sessionId)?.exchanges ?? [])]) exchange.close();
  }
}

/** Hands a relayed batch (a JSON array of messages, legacy.ts) to every open exchange of the session. */
function relay(exchanges: ReadonlySet<Exchange>, raw: string): void {
  let relayed: unknown;
  try {
    relayed = JSON.parse(raw);
  } catch {
    return;
  }
  if (!Array.isArray(relayed)) return;
  for (const exchange of [...exchanges]) for (const m of relayed as JSONRPCMessage[]) exchange.deliver(m);
}
