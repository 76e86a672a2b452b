/**
 * What the Redis store keeps (issue 24, hole 3): the same caps as the memory store, so anonymous
 * traffic can never push out a verified principal's state and no owner can push out another's.
 * Before this, the Redis store relied on `maxmemory` eviction, which evicts across callers.
 *
 * Each cap is a retention index, a ZSET of member → last use (least recently used first):
 * - `<p>own:<ownerTag>`: one owner's conversations, at most `maxConversationsPerOwner`;
 * - `<p>lru:conv:v` / `<p>lru:conv:a`: verified / anonymous conversations, `maxConversations` each;
 * - `<p>lru:rec:v` / `<p>lru:rec:a`: verified / anonymous small records, `maxRecords` each.
 * One script (RETAIN) marks a member used and trims its index past the cap, atomically, and
 * answers the members it dropped; the store then deletes their keys. Every index is one key (one
 * Cluster slot), so the script is Cluster-safe; the dropped keys are deleted one by one, each in
 * its own slot. Indexes are bounded by their caps and expire with the longest-lived member.
 */
import type { Cluster, Redis } from 'ioredis';
import { conversationOwner, ownedByVerified, type StoreCaps } from './store.ts';

/**
 * KEYS: index. ARGV: member, score (its use), cap, ttl → the members dropped past the cap, least
 * recently used first (never the member itself). The index lives at least `ttl` ms more.
 */
const RETAIN = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local out = {}
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if over > 0 then
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, over)) do
    if m ~= ARGV[1] and #out < over then out[#out + 1] = m end
  end
  redis.call('ZREM', KEYS[1], unpack(out))
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return out
`;

interface RetainScript {
  nlgateRetain(index: string, member: string, score: number, cap: number, ttl: number): Promise<string[]>;
}

/** Runs one Redis command as the store does (ready connection, failures mapped to STORE_UNAVAILABLE). */
type Run = <T>(command: () => Promise<T>) => Promise<T>;

/** The retention indexes of one Redis store: per-owner and per-class caps over conversations and records. */
export class RedisRetention {
  private readonly script: RetainScript;
  /** Ties within one millisecond still order by use: a per-process sequence in the low digits. */
  private sequence = 0;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly prefix: string,
    private readonly caps: StoreCaps,
    private readonly run: Run,
  ) {
    client.defineCommand('nlgateRetain', { lua: RETAIN, numberOfKeys: 1 });
    this.script = client as unknown as RetainScript;
  }

  /** The key of a conversation (docs/state.md "Key layout"). */
  conversationKey(id: string): string {
    return `${this.prefix}conv:${id}`;
  }

  /** The key of a small record. */
  recordKey(namespace: string, id: string): string {
    return `${this.prefix}rec:${namespace}:${id}`;
  }

  /** Marks conversation `id` just written; drops its owner's and its class's least recently used past their caps. */
  async keptConversation(id: string, ttlMs: number): Promise<void> {
    const score = this.score();
    const [mine, theirs] = await Promise.all([
      this.retain(this.ownerIndex(id), id, score, this.caps.maxConversationsPerOwner, ttlMs),
      this.retain(this.conversationIndex(id), id, score, this.caps.maxConversations, ttlMs),
    ]);
    // A conversation dropped from its class leaves its owner's index too (and the other way round).
    await Promise.all([
      ...mine.map((gone) => this.dropConversation(gone, this.conversationIndex(gone))),
      ...theirs.map((gone) => this.dropConversation(gone, this.ownerIndex(gone))),
    ]);
  }

  /** Marks conversation `id` just read (only if it is indexed: a read never adds a missing one). */
  async readConversation(id: string): Promise<void> {
    const score = this.score();
    await Promise.all([this.touch(this.ownerIndex(id), id, score), this.touch(this.conversationIndex(id), id, score)]);
  }

  /** Marks record `namespace:id` just written; drops its class's least recently used past `maxRecords`. */
  async keptRecord(namespace: string, id: string, ttlMs: number): Promise<void> {
    const member = `${namespace}:${id}`;
    const gone = await this.retain(this.recordIndex(id), member, this.score(), this.caps.maxRecords, ttlMs);
    await Promise.all(gone.map((m) => this.run(() => this.client.del(`${this.prefix}rec:${m}`))));
  }

  /** Marks record `namespace:id` just read. */
  async readRecord(namespace: string, id: string): Promise<void> {
    await this.touch(this.recordIndex(id), `${namespace}:${id}`, this.score());
  }

  /** Forgets a deleted record, so it no longer counts against its class's cap. */
  async forgetRecord(namespace: string, id: string): Promise<void> {
    await this.run(() => this.client.zrem(this.recordIndex(id), `${namespace}:${id}`));
  }

  private ownerIndex(id: string): string {
    return `${this.prefix}own:${conversationOwner(id)}`;
  }
  private conversationIndex(id: string): string {
    return `${this.prefix}lru:conv:${ownedByVerified(id) ? 'v' : 'a'}`;
  }
  private recordIndex(id: string): string {
    return `${this.prefix}lru:rec:${ownedByVerified(id) ? 'v' : 'a'}`;
  }

  private score(): number {
    this.sequence = (this.sequence + 1) % 1000;
    return Date.now() * 1000 + this.sequence;
  }

  private retain(index: string, member: string, score: number, cap: number, ttlMs: number): Promise<string[]> {
    return this.run(() => this.script.nlgateRetain(index, member, score, cap, Math.max(1, Math.ceil(ttlMs))));
  }

  private async touch(index: string, member: string, score: number): Promise<void> {
    await this.run(() => this.client.zadd(index, 'XX', score, member));
  }

  private async dropConversation(id: string, otherIndex: string): Promise<void> {
    await Promise.all([this.run(() => this.client.del(this.conversationKey(id))), this.run(() => this.client.zrem(otherIndex, id))]);
  }
}
