/**
 * The Redis store (design.md "State"): promise and conversation state shared by every gateway
 * replica, surviving restarts. Every racing transition is one Lua script (redis-scripts.ts), every
 * key lives under the prefix with a TTL, and cancels fan out over pub/sub on a second connection.
 *
 * Outages fail fast: a command is sent only on a ready connection (waiting at most a connect
 * timeout while one is being made), otherwise it rejects with STORE_UNAVAILABLE at once; ioredis
 * keeps reconnecting with capped backoff, and the same store works again when Redis is back.
 */
import type { Cluster, Redis } from 'ioredis';
import { GatewayError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';
import { ReadyGate, storeUnavailable, toStoreError } from './redis-connection.ts';
import { conversationFromHash, promiseFromHash, promiseToFields } from './redis-codec.ts';
import { defineScripts, type StoreScripts } from './redis-scripts.ts';
import { readBlob, writeBlob } from './redis-blobs.ts';
import { bucketOf, PROMISE_BUCKETS } from './redis-buckets.ts';
import { RedisRetention } from './redis-retention.ts';
import { RedisSubscriptions } from './redis-subscriptions.ts';
import { createRedisClient, DEFAULT_TUNING, parseRedisUrl, type RedisTuning } from './redis-url.ts';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { LimiterCache, wrapLimiter, type Limiter } from './limiter.ts';
import { DEFAULT_STORE_CAPS, type ConversationLink, type ConversationRecord, type LinkedRecord, type PromiseRecord, type QuotaScope, type RecordWrite, type Settlement, type Store, type StoreCaps, type StoredBlob, type TurnLimits, type TurnRecord } from './store.ts';
import { linkedConversationId, readLinkedInTurn } from './linked-read.ts';

type Client = Redis | Cluster;

export { storeUnavailable, toStoreError } from './redis-connection.ts';

export interface RedisStoreOptions {
  /** redis://, rediss://, redis-sentinel://, redis-cluster:// (docs/state.md "URL forms"). */
  url?: string;
  /** An existing client (its owner closes it; the store closes only its own subscriber). */
  client?: Client;
  /** Namespace of every key and of the cancel channel. Default `nlgate:`. */
  prefix?: string;
  log?: Logger;
  tuning?: Partial<RedisTuning>;
  /** What the store keeps per owner and per class (issue 24, hole 3); DEFAULT_STORE_CAPS where absent. */
  caps?: Partial<StoreCaps>;
}

const ms = (n: number): number => Math.max(1, Math.ceil(n));

/** The Redis-backed `Store` (design.md "State"; key layout and round trips in docs/state.md). */
export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly prefix: string;
  readonly client: Client;
  private readonly scripts: StoreScripts;
  private readonly limiters = new LimiterCache((name, points, duration) => {
    const inner = wrapLimiter(new RateLimiterRedis({ storeClient: this.client, keyPrefix: `${this.prefix}rl:${name}`, points, duration, inMemoryBlockOnConsumed: points + 1 }));
    // A refused request is a decision; a Redis failure is STORE_UNAVAILABLE, like every other command.
    return { consume: (key) => this.run(() => inner.consume(key)) };
  });
  private readonly ownsClient: boolean;
  private readonly tuning: RedisTuning;
  private readonly gate: ReadyGate;
  private readonly log: Logger | undefined;
  private readonly channel: string;
  private readonly subscriptions: RedisSubscriptions;
  private readonly retention: RedisRetention;
  private readonly unwatch: Array<() => void> = [];
  private closed = false;

  constructor(options: RedisStoreOptions) {
    this.prefix = options.prefix ?? 'nlgate:';
    this.log = options.log;
    this.tuning = { ...DEFAULT_TUNING, ...options.tuning };
    if (options.client) {
      this.client = options.client;
      this.ownsClient = false;
    } else {
      if (!options.url) throw new GatewayError('CONFIG_ERROR', 'The Redis store needs store.url or a client');
      this.client = createRedisClient(parseRedisUrl(options.url), this.tuning);
      this.ownsClient = true;
    }
    this.watch(this.client, 'store');
    this.scripts = defineScripts(this.client);
    this.retention = new RedisRetention(this.client, this.prefix, { ...DEFAULT_STORE_CAPS, ...options.caps });
    this.gate = new ReadyGate(this.client, this.tuning.connectTimeoutMs);
    this.channel = `${this.prefix}cancel`;
    this.subscriptions = new RedisSubscriptions({
      client: this.client,
      cancelChannel: this.channel,
      connectTimeoutMs: this.tuning.connectTimeoutMs,
      log: this.log,
      watch: (client, role) => this.watch(client, role),
    });
  }

  // ---- keys (all under the prefix) ----
  // Promise state is partitioned into PROMISE_BUCKETS lease buckets, each its own hash tag: a promise
  // hash lives in its bucket's slot beside that bucket's lease index, so every script stays
  // single-slot while a Redis Cluster spreads the buckets (and the promises) over its masters.
  private promiseKey(token: string): string {
    return `${this.prefix}promise:{p${bucketOf(token)}}:${token}`;
  }
  private indexKey(bucket: number): string {
    return `${this.prefix}leases:{p${bucket}}`;
  }
  private indexKeyOf(token: string): string {
    return this.indexKey(bucketOf(token));
  }
  // Conversations and records: redis-retention.ts (one script per operation, caps kept as it writes).
  /** A quota scope's ZSET and HASH; every quota key shares the `{quota}` hash slot. */
  private quotaKeys(scopes: readonly QuotaScope[]): string[] {
    return scopes.flatMap((s) => [`${this.prefix}{quota}:${s.key}`, `${this.prefix}{quota}:${s.key}:n`]);
  }

  // ---- promises ----

  async createPromise(record: PromiseRecord, ttlMs: number): Promise<void> {
    const lease = record.status === 'running' ? record.leaseUntil : '';
    const fields = promiseToFields(record);
    const created = await this.run(() =>
      this.scripts.nlgateCreatePromise(this.promiseKey(record.token), this.indexKeyOf(record.token), ms(ttlMs), record.token, lease, ...fields),
    );
    if (created !== 1) throw new GatewayError('INTERNAL_ERROR', 'A promise with this token already exists');
  }

  async getPromise(token: string, principal?: string): Promise<PromiseRecord | null> {
    const record = promiseFromHash(await this.run(() => this.client.hgetall(this.promiseKey(token))));
    return record && (principal === undefined || record.principal === principal) ? record : null;
  }

  async settlePromise(token: string, settlement: Settlement, ttlMs: number): Promise<boolean> {
    const response = JSON.stringify(settlement.response);
    const won = await this.run(() =>
      this.scripts.nlgateSettlePromise(this.promiseKey(token), this.indexKeyOf(token), token, settlement.status, response, ms(ttlMs), Date.now()),
    );
    return won === 1;
  }

  async updatePromise(token: string, owner: string, patch: Parameters<Store['updatePromise']>[2]): Promise<boolean> {
    const fields = promiseToFields({ ...patch, updatedAt: Date.now() });
    return (await this.run(() => this.scripts.nlgateUpdatePromise(this.promiseKey(token), owner, ...fields))) === 1;
  }

  async renewLease(token: string, owner: string, leaseUntil: number): Promise<boolean> {
    const renewed = await this.run(() =>
      this.scripts.nlgateRenewLease(this.promiseKey(token), this.indexKeyOf(token), token, owner, leaseUntil, Date.now()),
    );
    return renewed === 1;
  }

  async expiredLeases(now: number, limit: number): Promise<string[]> {
    // The script reads promise keys by name: ioredis's keyPrefix (if a given client has one) applies.
    const clientPrefix = (this.client.options as { keyPrefix?: string }).keyPrefix ?? '';
    const perBucket = await Promise.all(
      Array.from({ length: PROMISE_BUCKETS }, (_, b) =>
        this.run(() => this.scripts.nlgateExpiredLeases(this.indexKey(b), now, Math.floor(limit), `${clientPrefix}${this.prefix}promise:{p${b}}:`)),
      ),
    );
    // Each bucket answers [token, leaseUntil, ...]; the oldest leases first across all buckets.
    const expired: Array<[string, number]> = [];
    for (const reply of perBucket) for (let i = 0; i + 1 < reply.length; i += 2) expired.push([reply[i]!, Number(reply[i + 1])]);
    return expired
      .sort((x, y) => x[1] - y[1])
      .slice(0, Math.floor(limit))
      .map(([token]) => token);
  }

  async releaseLeases(tokens: readonly string[], owner: string): Promise<string[]> {
    // The renew script with a lease of 0 (one script per token, each in its own bucket's slot): owner
    // and status are checked and the lease index moved, atomically.
    const done = await Promise.all(
      tokens.map((token) => this.run(() => this.scripts.nlgateRenewLease(this.promiseKey(token), this.indexKeyOf(token), token, owner, 0, Date.now()))),
    );
    return tokens.filter((_, i) => done[i] === 1);
  }

  async claimExpiredLease(token: string, newOwner: string, leaseUntil: number, now: number): Promise<PromiseRecord | null> {
    const reply = await this.run(() =>
      this.scripts.nlgateClaimExpiredLease(this.promiseKey(token), this.indexKeyOf(token), token, newOwner, leaseUntil, now, Date.now()),
    );
    return promiseFromHash(reply);
  }

  async expirePromise(token: string, ttlMs: number): Promise<void> {
    await this.run(() => this.scripts.nlgateExpirePromise(this.promiseKey(token), ms(ttlMs)));
  }

  // ---- cross-replica cancel ----

  async publishCancel(token: string): Promise<void> {
    await this.run(() => this.client.publish(this.channel, token));
  }

  onCancel(handler: (token: string) => void): Promise<() => Promise<void>> {
    return this.subscriptions.onCancel(handler);
  }

  async publishTopic(topic: string, message: string): Promise<void> {
    await this.run(() => this.client.publish(this.topicChannel(topic), message));
  }

  onTopic(topic: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    return this.subscriptions.onTopic(this.topicChannel(topic), handler);
  }

  private topicChannel(topic: string): string {
    return `${this.prefix}topic:${topic}`;
  }

  // ---- conversations ----

  async getConversation(id: string, idleTtlMs: number): Promise<ConversationRecord | null> {
    return conversationFromHash(id, await this.run(() => this.retention.getConversation(id, ms(idleTtlMs))));
  }

  async recordTurn(id: string, turn: TurnRecord, opts: TurnLimits, record?: RecordWrite): Promise<void> {
    const upstream = turn.upstreamSession === undefined ? '' : JSON.stringify(turn.upstreamSession);
    const total = opts.maxPrevTotalChars === undefined ? '' : Math.max(0, Math.floor(opts.maxPrevTotalChars));
    const write = record && { ...record, ttlMs: ms(record.ttlMs) };
    await this.run(() => this.retention.recordTurn(id, [turn.query, Math.max(0, Math.floor(opts.maxPrev)), ms(opts.idleTtlMs), turn.agent, upstream, total], write));
  }

  async setConversationAttr(id: string, key: string, value: string, idleTtlMs: number): Promise<void> {
    await this.run(() => this.retention.setConversationField(id, `a:${key}`, value, ms(idleTtlMs)));
  }

  // ---- small records ----

  async putRecord(namespace: string, id: string, value: string, ttlMs: number, owner?: string): Promise<void> {
    await this.run(() => this.retention.putRecord(namespace, id, value, ms(ttlMs), owner));
  }

  async getRecord(namespace: string, id: string, touchTtlMs?: number): Promise<string | null> {
    return this.run(() => this.retention.getRecord(namespace, id, touchTtlMs === undefined ? '' : ms(touchTtlMs)));
  }

  async getRecordAndConversation(namespace: string, id: string, touchTtlMs: number | undefined, link: ConversationLink): Promise<LinkedRecord> {
    if (this.client.isCluster) return readLinkedInTurn(this, namespace, id, touchTtlMs, link);
    const touch = touchTtlMs === undefined ? '' : ms(touchTtlMs);
    const [record, handle, hash] = await this.run(() => this.retention.getRecordAndConversation(namespace, id, touch, { ...link, idleTtlMs: ms(link.idleTtlMs) }));
    if (handle === undefined) return { record };
    const conversationId = linkedConversationId(link.ownerTag, handle);
    return { record, conversation: { id: conversationId, record: conversationFromHash(conversationId, hash ?? null) } };
  }

  async replaceRecord(namespace: string, id: string, expected: string | null, value: string, ttlMs: number, owner?: string): Promise<boolean> {
    return (await this.run(() => this.retention.replaceRecord(namespace, id, expected, value, ms(ttlMs), owner))) === 1;
  }

  async deleteRecord(namespace: string, id: string, owner?: string): Promise<void> {
    await this.run(() => this.retention.deleteRecord(namespace, id, owner));
  }

  // ---- blobs ----

  async putBlob(namespace: string, id: string, blob: StoredBlob, ttlMs: number): Promise<void> {
    await this.run(() => writeBlob(this.client, `${this.prefix}blob:${namespace}:${id}`, blob, ms(ttlMs)));
  }

  async getBlob(namespace: string, id: string): Promise<StoredBlob | null> {
    return this.run(() => readBlob(this.client, `${this.prefix}blob:${namespace}:${id}`));
  }

  // ---- quotas ----

  async reserveQuota(scopes: readonly QuotaScope[], id: string, amount: number, ttlMs: number): Promise<boolean> {
    if (scopes.length === 0) return true;
    const keys = this.quotaKeys(scopes);
    const limits = scopes.map((s) => s.limit);
    const reply = await this.run(() => this.scripts.nlgateReserveQuota(keys.length, ...keys, Date.now(), id, amount, ms(ttlMs), ...limits));
    return reply === 1;
  }

  async releaseQuota(scopes: readonly QuotaScope[], id: string): Promise<void> {
    if (scopes.length === 0) return;
    const keys = this.quotaKeys(scopes);
    await this.run(() => this.scripts.nlgateReleaseQuota(keys.length, ...keys, id));
  }

  // ---- rate limits ----

  limiter(name: string, points: number, durationMs: number): Limiter {
    return this.limiters.get(name, points, durationMs);
  }

  // ---- lifecycle ----

  async ping(): Promise<void> {
    await this.run(() => this.client.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const subscriber = this.subscriptions.close();
    const conns = [...(subscriber ? [subscriber] : []), ...(this.ownsClient ? [this.client] : [])];
    await Promise.all(conns.map((c) => (c.status === 'ready' ? c.quit().then(() => undefined, () => c.disconnect()) : c.disconnect())));
    // A caller's client stays open: leave it as it was given, without our listeners.
    if (!this.ownsClient) this.unwatch.forEach((dispose) => dispose());
  }

  /** Runs one command on a ready connection, mapping every failure to a GatewayError. */
  private async run<T>(command: () => Promise<T>): Promise<T> {
    if (this.closed) throw storeUnavailable();
    try {
      await this.gate.wait();
      return await command();
    } catch (err) {
      throw toStoreError(err);
    }
  }

  /**
   * Logs an outage once (not on every reconnect attempt) and its end. The 'error' listener also
   * keeps ioredis from printing every failed reconnect to the console.
   */
  private watch(client: Client, role: string): void {
    let down = false;
    const onError = (err: Error): void => {
      if (down) return;
      down = true;
      this.log?.warn({ role, err: err.message }, 'state store connection lost; reconnecting');
    };
    const onReady = (): void => {
      if (!down) return;
      down = false;
      this.log?.info({ role }, 'state store connection restored');
    };
    client.on('error', onError);
    client.on('ready', onReady);
    this.unwatch.push(() => {
      client.off('error', onError);
      client.off('ready', onReady);
    });
  }
}
