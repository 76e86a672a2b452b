/**
 * Conversations and small records in Redis, each write ONE script (issue 25) that keeps the caps of
 * issue 24 (hole 3) as it writes: anonymous traffic can never push out a verified principal's state
 * and no owner can push out another's. Key layout (docs/state.md "State model"):
 *
 * - `<p>conv:{c<k>}:<id>`: a conversation (a hash), `id` = `<ownerTag>:<handle>`;
 * - `<p>own:{c<k>}:<ownerTag>`: one owner's conversations (ZSET, member = the id less the owner tag,
 *   score = last use), at most `maxConversationsPerOwner`;
 * - `<p>lru:{c<k>}`: the class's conversations (ZSET, member = id), at most `maxConversations`;
 * - `<p>rec:{r<k>}:<namespace>:<id>` and `<p>lru:{r<k>}`: small records and their class index;
 * - `<p>rown:{r<k>}:<ownerTag>:<namespace>`: the records one owner made in one namespace (ZSET,
 *   member = `namespace:id`, score = when written), at most `maxRecordsPerOwner`.
 *
 * `k` is the class: `v` for a verified principal's id (VERIFIED_OWNER_MARK), `a` for anonymous. The
 * `{c<k>}` / `{r<k>}` hash tag puts a class's conversations, its owners' indexes and its index in
 * ONE Cluster slot, so one script may write a conversation, mark it used in both indexes, trim both
 * past their caps and delete what they drop, atomically and Cluster-safe. Before this each write was
 * three scripts plus a DEL and a ZREM per dropped conversation (5.16 commands per new conversation
 * in `npm run bench`). The price: a class's conversations live on one Cluster master (as its index
 * already did, so no write went elsewhere), bounded by the caps.
 */
import type { Cluster, Redis } from 'ioredis';
import { GET_CONVERSATION, RECORD_TURN, RECORD_TURN_AND_PUT, SET_CONVERSATION_ATTR } from './redis-conversation-scripts.ts';
import { DELETE_RECORD, GET_RECORD, GET_RECORD_AND_CONVERSATION, PUT_RECORD, REPLACE_RECORD } from './redis-record-scripts.ts';
import { conversationOwner, ownedByVerified, type ConversationLink, type RecordWrite, type StoreCaps } from './store.ts';

type Arg = string | number;
/** GET_RECORD_AND_CONVERSATION's reply: the record (null: none), the handle read, that conversation's hash. */
export type LinkedReply = [record: string | null, handle?: string, conversation?: string[]];

interface RetentionScripts {
  nlgateRecordTurn(conversation: string, ownerIndex: string, classIndex: string, ...args: Arg[]): Promise<number>;
  nlgateRecordTurnAndPut(conversation: string, ownerIndex: string, classIndex: string, record: string, recordIndex: string, recordOwnerIndex: string, ...args: Arg[]): Promise<number>;
  nlgateSetConversationAttr(conversation: string, ownerIndex: string, classIndex: string, ...args: Arg[]): Promise<number>;
  nlgateGetConversation(conversation: string, ownerIndex: string, classIndex: string, ...args: Arg[]): Promise<string[] | null>;
  nlgatePutRecord(record: string, classIndex: string, ownerIndex: string, ...args: Arg[]): Promise<number>;
  nlgateGetRecord(record: string, classIndex: string, ...args: Arg[]): Promise<string | null>;
  nlgateGetRecordAndConversation(record: string, classIndex: string, ownerIndex: string, conversationIndex: string, conversationStem: string, ...args: Arg[]): Promise<LinkedReply>;
  nlgateReplaceRecord(record: string, classIndex: string, ownerIndex: string, ...args: Arg[]): Promise<number>;
  nlgateDeleteRecord(record: string, classIndex: string, ownerIndex: string, member: string): Promise<number>;
}

const SCRIPTS: Record<keyof RetentionScripts, { lua: string; numberOfKeys: number }> = {
  nlgateRecordTurn: { lua: RECORD_TURN, numberOfKeys: 3 },
  nlgateRecordTurnAndPut: { lua: RECORD_TURN_AND_PUT, numberOfKeys: 6 },
  nlgateSetConversationAttr: { lua: SET_CONVERSATION_ATTR, numberOfKeys: 3 },
  nlgateGetConversation: { lua: GET_CONVERSATION, numberOfKeys: 3 },
  nlgatePutRecord: { lua: PUT_RECORD, numberOfKeys: 3 },
  nlgateGetRecord: { lua: GET_RECORD, numberOfKeys: 2 },
  nlgateGetRecordAndConversation: { lua: GET_RECORD_AND_CONVERSATION, numberOfKeys: 5 },
  nlgateReplaceRecord: { lua: REPLACE_RECORD, numberOfKeys: 3 },
  nlgateDeleteRecord: { lua: DELETE_RECORD, numberOfKeys: 3 },
};

/** The hash tag of a record's class (and of every index of it): one Cluster slot per class. */
const recordClass = (id: string): string => (ownedByVerified(id) ? '{rv}' : '{ra}');

/** Where one conversation lives: its key, its owner's index and member there, its class's index. */
interface ConversationKeys {
  conversation: string;
  ownerIndex: string;
  classIndex: string;
  /** The id less its owner tag (`:<handle>`): the owner index's key already names the owner. */
  member: string;
}

/** A turn's arguments to the RECORD_TURN script, before the retention's. */
export type TurnArgs = [query: string, maxPrev: number, idleTtlMs: number, agent: string, upstreamJson: string, maxPrevTotal: number | ''];

/** The conversations and records of one Redis store, each operation one script (see the file's comment). */
export class RedisRetention {
  private readonly scripts: RetentionScripts;
  /** Ties within one millisecond still order by use: a per-process sequence in the low digits. */
  private sequence = 0;

  /** A Cluster keeps conversations and records in different slots: no script may touch both. */
  private readonly cluster: boolean;

  constructor(
    client: Redis | Cluster,
    private readonly prefix: string,
    private readonly caps: StoreCaps,
  ) {
    for (const [name, def] of Object.entries(SCRIPTS)) client.defineCommand(name, def);
    this.scripts = client as unknown as RetentionScripts;
    this.cluster = client.isCluster;
  }

  /**
   * Appends a turn to conversation `id` (creating it), within its owner's and its class's caps; with
   * `record`, stores that record too (putRecord): in the same script on one connection, beside it on
   * a Cluster (another slot).
   */
  async recordTurn(id: string, turn: TurnArgs, record?: RecordWrite): Promise<void> {
    const k = this.conversationKeys(id);
    const turnArgs = [id, ...turn, ...this.retention(k, turn[2])];
    if (!record) {
      await this.scripts.nlgateRecordTurn(k.conversation, k.ownerIndex, k.classIndex, ...turnArgs);
      return;
    }
    if (this.cluster) {
      await Promise.all([this.scripts.nlgateRecordTurn(k.conversation, k.ownerIndex, k.classIndex, ...turnArgs), this.putRecord(record.namespace, record.id, record.value, record.ttlMs, record.owner)]);
      return;
    }
    const [key, index, member] = this.recordKeys(record.namespace, record.id);
    const [ownerIndex, ownerCap] = this.ownerOf(record.namespace, record.id, record.owner);
    await this.scripts.nlgateRecordTurnAndPut(k.conversation, k.ownerIndex, k.classIndex, key, index, ownerIndex, ...turnArgs, record.value, record.ttlMs, member, this.score(), this.caps.maxRecords, ownerCap);
  }

  /** Sets hash field `field` of conversation `id` (creating it), within its owner's and its class's caps. */
  setConversationField(id: string, field: string, value: string, idleTtlMs: number): Promise<number> {
    const k = this.conversationKeys(id);
    return this.scripts.nlgateSetConversationAttr(k.conversation, k.ownerIndex, k.classIndex, id, field, value, idleTtlMs, ...this.retention(k, idleTtlMs));
  }

  /** Conversation `id`'s hash (HGETALL), its idle TTL refreshed and its place in both indexes; null when unknown. */
  getConversation(id: string, idleTtlMs: number): Promise<string[] | null> {
    const k = this.conversationKeys(id);
    return this.scripts.nlgateGetConversation(k.conversation, k.ownerIndex, k.classIndex, idleTtlMs, k.member, id, this.score());
  }

  /** Stores record `namespace:id` for `ttlMs`, within its class's `maxRecords` and its owner's `maxRecordsPerOwner`. */
  putRecord(namespace: string, id: string, value: string, ttlMs: number, owner?: string): Promise<number> {
    const [key, index, member] = this.recordKeys(namespace, id);
    const [ownerIndex, ownerCap] = this.ownerOf(namespace, id, owner);
    return this.scripts.nlgatePutRecord(key, index, ownerIndex, value, ttlMs, member, this.score(), this.caps.maxRecords, ownerCap);
  }

  /** Reads record `namespace:id` (sliding its TTL with `touchTtlMs`) and marks it used. */
  getRecord(namespace: string, id: string, touchTtlMs: number | ''): Promise<string | null> {
    const [key, index, member] = this.recordKeys(namespace, id);
    return this.scripts.nlgateGetRecord(key, index, touchTtlMs, member, this.score());
  }

  /**
   * getRecord, and the conversation `<ownerTag>:<handle>` the record names (Store.getRecordAndConversation),
   * read as getConversation reads it: one script. Not on a Cluster (the conversation is in another slot).
   */
  getRecordAndConversation(namespace: string, id: string, touchTtlMs: number | '', link: ConversationLink): Promise<LinkedReply> {
    const [key, index, member] = this.recordKeys(namespace, id);
    const k = this.conversationKeys(`${link.ownerTag}:`);
    const mode = link.field === undefined ? 'value' : 'json';
    return this.scripts.nlgateGetRecordAndConversation(key, index, k.ownerIndex, k.classIndex, k.conversation, touchTtlMs, member, this.score(), mode, link.field ?? '', link.ownerTag, link.idleTtlMs, link.fallback ?? '');
  }

  /** Writes record `namespace:id` when it holds `expected`, or none when null (1), or leaves it as it is (0). */
  replaceRecord(namespace: string, id: string, expected: string | null, value: string, ttlMs: number, owner?: string): Promise<number> {
    const [key, index, member] = this.recordKeys(namespace, id);
    const [ownerIndex, ownerCap] = this.ownerOf(namespace, id, owner);
    return this.scripts.nlgateReplaceRecord(key, index, ownerIndex, expected ?? '', value, ttlMs, member, this.score(), this.caps.maxRecords, expected === null ? '1' : '0', ownerCap);
  }

  /** Deletes record `namespace:id` and its place in the class's index (and in its owner's, given the owner). */
  deleteRecord(namespace: string, id: string, owner?: string): Promise<number> {
    const [key, index, member] = this.recordKeys(namespace, id);
    return this.scripts.nlgateDeleteRecord(key, index, this.ownerOf(namespace, id, owner)[0], member);
  }

  private conversationKeys(id: string): ConversationKeys {
    const tag = ownedByVerified(id) ? '{cv}' : '{ca}';
    const owner = conversationOwner(id);
    return {
      conversation: `${this.prefix}conv:${tag}:${id}`,
      ownerIndex: `${this.prefix}own:${tag}:${owner}`,
      classIndex: `${this.prefix}lru:${tag}`,
      member: id.slice(owner.length),
    };
  }

  /** The retention's ARGV (RETAIN_CONVERSATION `a`). */
  private retention(k: ConversationKeys, ttlMs: number): Arg[] {
    return [k.member, this.score(), this.caps.maxConversationsPerOwner, this.caps.maxConversations, ttlMs];
  }

  /** A record's key, its class's index and its member there (`namespace:id`). */
  private recordKeys(namespace: string, id: string): [string, string, string] {
    const tag = recordClass(id);
    const member = `${namespace}:${id}`;
    return [`${this.prefix}rec:${tag}:${member}`, `${this.prefix}lru:${tag}`, member];
  }

  /** The owner index of a record written for `owner` and its cap; without one, the class index again and no cap. */
  private ownerOf(namespace: string, id: string, owner: string | undefined): [string, number | ''] {
    if (owner === undefined) return [`${this.prefix}lru:${recordClass(id)}`, ''];
    return [`${this.prefix}rown:${recordClass(id)}:${owner}:${namespace}`, this.caps.maxRecordsPerOwner];
  }

  private score(): number {
    this.sequence = (this.sequence + 1) % 1000;
    return Date.now() * 1000 + this.sequence;
  }
}
