import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { GatewayError } from '../../base/errors.ts';
import { publishCreated } from '../../core/core-events.ts';
import { newToken } from '../../core/ids.ts';
import { isOwner, isVerifiedId, ownerTag } from '../../core/ownership.ts';
import { VERIFIED_OWNER_MARK } from '../../store/store.ts';
import type { Gateway, ReadAhead } from '../../core/gateway-types.ts';
import type { Principal } from '../../core/principal.ts';
import type { Store } from '../../store/store.ts';
import { updateRecord, type RecordCodec } from '../../store/update-record.ts';

/** Store namespace of the 2025-era MCP sessions the gateway issued (design.md "State"). */
export const SESSION_NAMESPACE = 'mcp-session';
/** Namespace marking a session's open GET stream (one per session, MCP Streamable HTTP "Listening"). */
export const STREAM_NAMESPACE = 'mcp-session-stream';
/** A session is forgotten after a day without use (sliding). */
export const SESSION_IDLE_TTL_MS = 24 * 60 * 60_000;

/** What a replica needs to serve a session it did not start: the `initialize` facts, nothing else. */
const SessionRecordSchema = z.object({
  protocolVersion: z.string(),
  capabilities: z.record(z.string(), z.unknown()).default({}),
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }).optional(),
  /** The level set with `logging/setLevel`. */
  logLevel: z.string().optional(),
  /** Owner tag of the principal that initialised the session (core/ownership.ts): nobody else may use it. */
  owner: z.string().optional(),
  /**
   * The conversation the session continues: null until its first answer. Absent in a record written
   * before the field existed, whose binding is a conversation alias (read on, so a rolling upgrade
   * keeps every open session's conversation).
   */
  conversationId: z.string().nullable().optional(),
});
type SessionRecord = z.infer<typeof SessionRecordSchema>;

/** A stored record as written (every field, known or not) and as this release reads it; null when damaged. */
function parseRecord(raw: string): { raw: Record<string, unknown>; parsed: SessionRecord } | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const parsed = SessionRecordSchema.safeParse(json);
  return parsed.success ? { raw: json as Record<string, unknown>, parsed: parsed.data } : null;
}

/** The default cap on a stored session record (config `limits.maxSessionRecordBytes`). */
export const DEFAULT_MAX_SESSION_RECORD_BYTES = 16_384;

/** A 2025-era MCP session (MCP 2025-11-25 "Session Management"). */
export interface McpSession {
  id: string;
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo?: { name: string; version: string };
  logLevel?: string;
  /** Its conversation (SessionRecordSchema); undefined: an older record, bound through an alias. */
  conversationId?: string | null;
  /** That conversation, read with the record for this request's call (`get` with `readAhead`): used once. */
  readAhead?: ReadAhead;
}

/**
 * Session ids any replica can validate: minted on `initialize` (128 random bits), kept in the shared
 * store with a sliding TTL, and deleted on `DELETE`. The record names the session's conversation
 * (only its id; the turns live in the conversation), so the read that admits a call also finds its
 * conversation: one store trip fewer per call than an alias record beside it (issue 25).
 */
export class McpSessions {
  /** The stored text each session object was read from or last written as: the base of its next update. */
  private readonly lastRead = new WeakMap<McpSession, string>();

  constructor(
    private readonly store: Store,
    private readonly maxRecordBytes: number = DEFAULT_MAX_SESSION_RECORD_BYTES,
    /** The core's read of a record with the conversation it names (issue 25: one round trip for both). */
    private readonly reader?: Pick<Gateway, 'readRecordWithConversation'>,
  ) {}

  /**
   * Starts a session of `owner` for an `initialize` request. Throws PAYLOAD_TOO_LARGE, storing
   * nothing, when the facts to keep (capabilities, client info) are larger than the cap.
   */
  async create(facts: Omit<McpSession, 'id' | 'conversationId'>, owner: Principal): Promise<McpSession> {
    // A verified owner's session id carries the store's mark, so anonymous sessions never push it out (issue 24).
    const id = (isVerifiedId(owner.id) ? VERIFIED_OWNER_MARK : '') + newToken('mcp');
    const record: SessionRecord = { protocolVersion: facts.protocolVersion, capabilities: facts.capabilities as Record<string, unknown>, owner: ownerTag(owner), conversationId: null };
    if (facts.clientInfo) record.clientInfo = facts.clientInfo;
    const raw = JSON.stringify(record);
    const size = Buffer.byteLength(raw);
    if (size > this.maxRecordBytes) {
      throw new GatewayError(
        'PAYLOAD_TOO_LARGE',
        `initialize is too large: its capabilities and clientInfo take ${size} bytes, and a session keeps at most ${this.maxRecordBytes}`,
      );
    }
    await this.store.putRecord(SESSION_NAMESPACE, id, raw, SESSION_IDLE_TTL_MS, record.owner);
    publishCreated('mcp');
    const session: McpSession = { id, ...facts, conversationId: null };
    this.lastRead.set(session, raw);
    return session;
  }

  /**
   * The live session with this id owned by `owner` (its TTL refreshed), or null when unknown, expired,
   * deleted, or another principal's (the same answer: a session is no bearer handle). With
   * `readAhead` (a POST, which may call `ask`), the conversation the record names is read with it.
   */
  async get(id: string, owner: Principal, readAhead = false): Promise<McpSession | null> {
    const read =
      readAhead && this.reader
        ? await this.reader.readRecordWithConversation(SESSION_NAMESPACE, id, SESSION_IDLE_TTL_MS, 'conversationId', owner)
        : { record: await this.store.getRecord(SESSION_NAMESPACE, id, SESSION_IDLE_TTL_MS) };
    const raw = read.record;
    if (raw === null) return null;
    const stored = parseRecord(raw);
    if (!stored || !isOwner(stored.parsed.owner, owner)) return null;
    const r = stored.parsed;
    const session: McpSession = {
      id,
      protocolVersion: r.protocolVersion,
      capabilities: r.capabilities as ClientCapabilities,
      ...(r.clientInfo ? { clientInfo: r.clientInfo } : {}),
      ...(r.logLevel ? { logLevel: r.logLevel } : {}),
      ...(r.conversationId !== undefined ? { conversationId: r.conversationId } : {}),
      ...(read.conversation ? { readAhead: read.conversation } : {}),
    };
    this.lastRead.set(session, raw);
    return session;
  }

  /** Records the level from `logging/setLevel`. */
  async setLogLevel(session: McpSession, level: string, owner: Principal): Promise<void> {
    await this.update(session, { logLevel: level.slice(0, 32) }, owner);
  }

  /** Binds the session to the conversation its latest answer belongs to (the next call continues it). */
  async bindConversation(session: McpSession, conversationId: string, owner: Principal): Promise<void> {
    await this.update(session, { conversationId }, owner);
  }

  /**
   * Sets fields of the stored record by compare-and-set on the text last read (Store.replaceRecord):
   * a session deleted meanwhile stays deleted (a whole-record write would bring it back for a day),
   * and a field another call set meanwhile is kept (the record is read again and the change made on
   * it). Fields this release does not know are kept as they are, for a rolling upgrade. Resolves
   * whether the record now holds the change: false when the session is gone or no longer `owner`'s.
   */
  private async update(session: McpSession, patch: Pick<SessionRecord, 'logLevel' | 'conversationId'>, owner: Principal): Promise<boolean> {
    // The record as written, every field kept; null when damaged or no longer `owner`'s.
    const codec: RecordCodec<Record<string, unknown>> = {
      read: (raw) => {
        const stored = parseRecord(raw);
        return stored && isOwner(stored.parsed.owner, owner) ? stored.raw : null;
      },
      write: (value) => JSON.stringify(value),
    };
    const read = this.lastRead.get(session);
    const value = read === undefined ? null : codec.read(read);
    const from = value === null ? null : { value, raw: read! };
    const result = await updateRecord(this.store, SESSION_NAMESPACE, session.id, from, codec, (stored) => ({ ...stored, ...patch }), SESSION_IDLE_TTL_MS);
    if (!result?.changed) return false;
    Object.assign(session, patch);
    this.lastRead.set(session, result.now.raw);
    return true;
  }

  /**
   * Ends a session (`DELETE`): every replica answers 404 for it from now on. `owner`, the principal it
   * was created for, frees its place among that owner's sessions (store.maxRecordsPerOwner) at once.
   */
  async delete(id: string, owner?: Principal): Promise<void> {
    await this.store.deleteRecord(SESSION_NAMESPACE, id, owner && ownerTag(owner));
    await this.store.deleteRecord(STREAM_NAMESPACE, id);
  }
}
