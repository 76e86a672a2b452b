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
import { DELETE_RECORD, GET_RECORD, GET_RECORD_AND_CONVERSATION, PUT_RECORD, PUT_RECORD_FUNCTION, REPLACE_RECORD } from './redis-record-scripts.ts';
import { conversationOwner, ownedByVerified, type RecordWrite, type StoreCaps } from './store.ts';

/**
 * Marks a conversation used in its owner's index and its class's index, trims each past its cap
 * (least recently used first, never the one being written) and deletes what they drop, from the
 * other index too. KEYS: conversation, owner index, class index. `a`: the ARGV of the retention
 * (member, score, per-owner cap, class cap, ttl). The dropped conversations' keys and owner indexes
 * are named here, not in KEYS: they share the class's hash tag, so they are in this script's slot.
 * Their key prefixes are this conversation's keys less its id and owner tag, so they carry whatever
 * prefix the client adds (an ioredis keyPrefix) without being told.
 */
const RETAIN_CONVERSATION = `
local function keep_alive(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
local function retain(id, a)
  local member, score, ttl = a[1], a[2], tonumber(a[5])
  local owner = string.sub(id, 1, #id - #member)
  local conv_prefix = string.sub(KEYS[1], 1, #KEYS[1] - #id)
  local own_prefix = string.sub(KEYS[2], 1, #KEYS[2] - #owner)
  redis.call('ZADD', KEYS[2], score, member)
  local over = redis.call('ZCARD', KEYS[2]) - tonumber(a[3])
  if over > 0 then
    for _, m in ipairs(redis.call('ZRANGE', KEYS[2], 0, over)) do
      if m ~= member and over > 0 then
        redis.call('ZREM', KEYS[2], m)
        redis.call('DEL', conv_prefix .. owner .. m)
        redis.call('ZREM', KEYS[3], owner .. m)
        over = over - 1
      end
    end
  end
  keep_alive(KEYS[2], ttl)
  redis.call('ZADD', KEYS[3], score, id)
  over = redis.call('ZCARD', KEYS[3]) - tonumber(a[4])
  if over > 0 then
    for _, gone in ipairs(redis.call('ZRANGE', KEYS[3], 0, over)) do
      if gone ~= id and over > 0 then
        local colon = string.find(gone, ':', 1, true)
        local o = colon and string.sub(gone, 1, colon - 1) or ''
        redis.call('ZREM', KEYS[3], gone)
        redis.call('DEL', conv_prefix .. gone)
        redis.call('ZREM', own_prefix .. o, string.sub(gone, #o + 1))
        over = over - 1
      end
    end
  end
  keep_alive(KEYS[3], ttl)
end
`;

/** ARGV positions of the retention arguments, after each script's own. */
const retentionArgs = (first: number) => `{ ARGV[${first}], ARGV[${first + 1}], ARGV[${first + 2}], ARGV[${first + 3}], ARGV[${first + 4}] }`;

/**
 * KEYS: conversation, owner index, class index. ARGV: id, query, maxPrev, idleTtl, agent,
 * upstreamJson ('' = keep), maxPrevTotal ('' = no cap), then the retention's → 1. `p` is a JSON array
 * of strings that only this script writes (cjson decodes only what cjson encoded); an empty array is
 * written literally because cjson would encode it as {}. Lengths are UTF-16 code units, as JavaScript
 * counts them (store/prev.ts): bytes, less UTF-8 continuation bytes, plus one per 4-byte sequence.
 */
const TURN = `
local function u16len(s)
  local _, cont = string.gsub(s, '[\\128-\\191]', '')
  local _, four = string.gsub(s, '[\\240-\\247]', '')
  return #s - cont + four
end
local max = tonumber(ARGV[3])
local prev = {}
local raw = redis.call('HGET', KEYS[1], 'p')
if raw and raw ~= '[]' then prev = cjson.decode(raw) end
prev[#prev + 1] = ARGV[2]
local kept = {}
for i = math.max(1, #prev - max + 1), #prev do kept[#kept + 1] = prev[i] end
if ARGV[7] ~= '' then
  local cap = tonumber(ARGV[7])
  local total = 0
  for _, q in ipairs(kept) do total = total + u16len(q) end
  local first = 1
  while first <= #kept and total > cap do
    total = total - u16len(kept[first])
    first = first + 1
  end
  local trimmed = {}
  for i = first, #kept do trimmed[#trimmed + 1] = kept[i] end
  kept = trimmed
end
local enc = '[]'
if #kept > 0 then enc = cjson.encode(kept) end
redis.call('HSET', KEYS[1], 'p', enc)
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'u:' .. ARGV[5], ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
retain(ARGV[1], ${retentionArgs(8)})
`;
const RECORD_TURN = `${RETAIN_CONVERSATION}${TURN}return 1
`;

/**
 * RECORD_TURN, then a small record stored as PUT_RECORD stores it (Store.recordTurn `record`): one
 * round trip instead of two. KEYS: conversation, owner index, class index, record, its class index,
 * its owner index. ARGV: RECORD_TURN's twelve, then PUT_RECORD's six. Only where every key is on one
 * connection: conversations and records have hash tags of their own (a Cluster splits them).
 */
const RECORD_TURN_AND_PUT = `${RETAIN_CONVERSATION}${PUT_RECORD_FUNCTION}${TURN}put_record({ KEYS[4], KEYS[5], KEYS[6] }, ARGV[13], ARGV[14], ARGV[15], ARGV[16], ARGV[17], ARGV[18])
return 1
`;

/** KEYS: conversation, owner index, class index. ARGV: id, field, value, idleTtl, then the retention's → 1. */
const SET_CONVERSATION_ATTR = `${RETAIN_CONVERSATION}
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
retain(ARGV[1], ${retentionArgs(5)})
return 1
`;

/**
 * KEYS: conversation, owner index, class index. ARGV: idleTtl, owner member, id, score → HGETALL with
 * the idle TTL refreshed and the conversation marked used in both indexes (only where it is indexed:
 * a read never adds one) | nil.
 */
const GET_CONVERSATION = `
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return nil end
redis.call('ZADD', KEYS[2], 'XX', ARGV[4], ARGV[2])
redis.call('ZADD', KEYS[3], 'XX', ARGV[4], ARGV[3])
return redis.call('HGETALL', KEYS[1])
`;

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
  getRecordAndConversation(namespace: string, id: string, touchTtlMs: number | '', link: { field?: string; fallback?: string; ownerTag: string; idleTtlMs: number }): Promise<LinkedReply> {
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
