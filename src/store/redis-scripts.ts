/**
 * The Lua scripts of the Redis store. Each transition that can race (design.md "State": complete
 * vs cancel, two replicas claiming one lease) is ONE script, so Redis runs it atomically and in
 * one round trip. Scripts are registered with ioredis `defineCommand` (EVALSHA, falling back to
 * EVAL after a SCRIPT FLUSH or a failover to a node that never saw them).
 *
 * Key layout (docs/reliability.md): a promise is a HASH `<p>promise:{p<b>}:<token>`, where `b` is
 * its lease bucket (redis-buckets.ts `bucketOf`); running promises are indexed in their bucket's ZSET
 * `<p>leases:{p<b>}` (token → leaseUntil). The `{p<b>}` hash tag keeps a promise and its index in
 * one Cluster slot, so a script may touch them together, while the buckets spread over the masters. Every key gets a TTL; the index's
 * TTL is kept ≥ the longest-lived promise it lists, so it disappears once they all have.
 *
 * Promise fields the scripts read are scalars (status, owner, leaseUntil); JSON fields (response,
 * request) pass through as opaque strings and are never decoded in Lua. The conversation and record
 * scripts, which keep the retention caps as they write, are in redis-conversation-scripts.ts and
 * redis-record-scripts.ts (run by redis-retention.ts).
 */
import type { Cluster, Redis } from 'ioredis';

/** Keeps the lease index alive at least `ttl` ms more (never shortens it). */
const KEEP_INDEX = `
local function keep_index(idx, ttl)
  ttl = tonumber(ttl)
  if ttl == nil or ttl <= 0 then return end
  if redis.call('PTTL', idx) < ttl then redis.call('PEXPIRE', idx, ttl) end
end
`;

/** KEYS: promise, index. ARGV: ttl, token, leaseUntil (or '' if not running), field, value, … → 1 | 0 (exists). */
const CREATE_PROMISE = `${KEEP_INDEX}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
  keep_index(KEYS[2], ARGV[1])
end
return 1
`;

/** KEYS: promise, index. ARGV: token, status, responseJson, ttl, now → 1 (this call settled it) | 0. */
const SETTLE_PROMISE = `
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'response', ARGV[3], 'updatedAt', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

/** KEYS: promise. ARGV: owner, field, value, … (updatedAt included) → 1 | 0 (not running or not owner). */
const UPDATE_PROMISE = `
local s = redis.call('HMGET', KEYS[1], 'status', 'owner')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
`;

/** KEYS: promise, index. ARGV: token, owner, leaseUntil, now → 1 | 0. */
const RENEW_LEASE = `${KEEP_INDEX}
local s = redis.call('HMGET', KEYS[1], 'status', 'owner')
if s[1] ~= 'running' or s[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'leaseUntil', ARGV[3], 'updatedAt', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
keep_index(KEYS[2], redis.call('PTTL', KEYS[1]))
return 1
`;

/** KEYS: promise, index. ARGV: token, newOwner, leaseUntil, now, updatedAt → the record (HGETALL) | nil. */
const CLAIM_EXPIRED_LEASE = `${KEEP_INDEX}
local s = redis.call('HMGET', KEYS[1], 'status', 'leaseUntil')
if s[1] ~= 'running' or (tonumber(s[2]) or 0) >= tonumber(ARGV[4]) then return nil end
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'leaseUntil', ARGV[3], 'updatedAt', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
keep_index(KEYS[2], redis.call('PTTL', KEYS[1]))
return redis.call('HGETALL', KEYS[1])
`;

/**
 * KEYS: index. ARGV: now, limit, promiseKeyPrefix → [token, leaseUntil, …] of running promises
 * whose lease ended before now, oldest first. Entries whose promise expired or settled are pruned on the way (the
 * promise keys share the index's hash slot, so reading them here is Cluster-safe).
 */
const EXPIRED_LEASES = `
local limit = tonumber(ARGV[2])
local out = {}
local found = 0
if limit <= 0 then return out end
for round = 1, 8 do
  local batch = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'WITHSCORES', 'LIMIT', found, limit - found)
  if #batch == 0 then break end
  local pruned = 0
  for i = 1, #batch, 2 do
    local token = batch[i]
    if redis.call('HGET', ARGV[3] .. token, 'status') == 'running' then
      out[#out + 1] = token
      out[#out + 1] = batch[i + 1]
      found = found + 1
    else
      redis.call('ZREM', KEYS[1], token)
      pruned = pruned + 1
    end
  end
  if pruned == 0 or found >= limit then break end
end
return out
`;

/** KEYS: promise. ARGV: ttl → shortens (never extends) the life of a settled promise. */
const EXPIRE_PROMISE = `
local st = redis.call('HGET', KEYS[1], 'status')
if not st or st == 'running' then return 0 end
local cur = redis.call('PTTL', KEYS[1])
if cur < 0 or cur > tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
`;

/**
 * Quotas: each scope is a ZSET (reservation id → ends at) and a HASH (id → amount, plus `_sum`), all
 * under the `{quota}` hash tag so one script may touch every scope of a reservation. Reservations
 * whose time is up are pruned (and subtracted) before each check, so the sums track what is live.
 */
const QUOTA_PRUNE = `
local function prune(z, h, now)
  local gone = redis.call('ZRANGEBYSCORE', z, '-inf', now)
  for _, id in ipairs(gone) do
    local a = tonumber(redis.call('HGET', h, id) or '0')
    if a ~= 0 then redis.call('HINCRBY', h, '_sum', -a) end
    redis.call('HDEL', h, id)
  end
  if #gone > 0 then redis.call('ZREMRANGEBYSCORE', z, '-inf', now) end
  return tonumber(redis.call('HGET', h, '_sum') or '0')
end
`;

/**
 * KEYS: zset1, hash1, zset2, hash2, …  ARGV: now, id, amount, ttl, limit1, limit2, … → 1 (reserved) |
 * 0 (over a limit). Reserving an id again replaces its amount (and its end).
 */
const RESERVE_QUOTA = `${QUOTA_PRUNE}
local now = tonumber(ARGV[1])
local amount = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local n = #KEYS / 2
for i = 1, n do
  local used = prune(KEYS[2 * i - 1], KEYS[2 * i], now) - tonumber(redis.call('HGET', KEYS[2 * i], ARGV[2]) or '0')
  if used + amount > tonumber(ARGV[4 + i]) then return 0 end
end
for i = 1, n do
  local z, h = KEYS[2 * i - 1], KEYS[2 * i]
  local old = tonumber(redis.call('HGET', h, ARGV[2]) or '0')
  redis.call('HINCRBY', h, '_sum', amount - old)
  redis.call('HSET', h, ARGV[2], amount)
  redis.call('ZADD', z, now + ttl, ARGV[2])
  for _, k in ipairs({ z, h }) do
    if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
  end
end
return 1
`;

/** KEYS: zset1, hash1, …  ARGV: id → ends the reservation in every scope. */
const RELEASE_QUOTA = `
for i = 1, #KEYS / 2 do
  local z, h = KEYS[2 * i - 1], KEYS[2 * i]
  local a = tonumber(redis.call('HGET', h, ARGV[1]) or '0')
  if a ~= 0 then redis.call('HINCRBY', h, '_sum', -a) end
  redis.call('HDEL', h, ARGV[1])
  redis.call('ZREM', z, ARGV[1])
end
return 1
`;

type Arg = string | number;
type Reply<T> = Promise<T>;

/** The scripted commands, as `defineScripts` adds them to a client. */
export interface StoreScripts {
  nlgateCreatePromise(promise: string, index: string, ...args: Arg[]): Reply<number>;
  nlgateSettlePromise(promise: string, index: string, ...args: Arg[]): Reply<number>;
  nlgateUpdatePromise(promise: string, ...args: Arg[]): Reply<number>;
  nlgateRenewLease(promise: string, index: string, ...args: Arg[]): Reply<number>;
  nlgateClaimExpiredLease(promise: string, index: string, ...args: Arg[]): Reply<string[] | null>;
  nlgateExpiredLeases(index: string, ...args: Arg[]): Reply<string[]>;
  nlgateExpirePromise(promise: string, ttl: number): Reply<number>;
  nlgateReserveQuota(numberOfKeys: number, ...keysAndArgs: Arg[]): Reply<number>;
  nlgateReleaseQuota(numberOfKeys: number, ...keysAndArgs: Arg[]): Reply<number>;
}

/** Scripts whose key count varies per call: the caller passes it first (ioredis `numberOfKeys` omitted). */
const SCRIPTS: Record<keyof StoreScripts, { lua: string; numberOfKeys?: number }> = {
  nlgateCreatePromise: { lua: CREATE_PROMISE, numberOfKeys: 2 },
  nlgateSettlePromise: { lua: SETTLE_PROMISE, numberOfKeys: 2 },
  nlgateUpdatePromise: { lua: UPDATE_PROMISE, numberOfKeys: 1 },
  nlgateRenewLease: { lua: RENEW_LEASE, numberOfKeys: 2 },
  nlgateClaimExpiredLease: { lua: CLAIM_EXPIRED_LEASE, numberOfKeys: 2 },
  nlgateExpiredLeases: { lua: EXPIRED_LEASES, numberOfKeys: 1 },
  nlgateExpirePromise: { lua: EXPIRE_PROMISE, numberOfKeys: 1 },
  nlgateReserveQuota: { lua: RESERVE_QUOTA },
  nlgateReleaseQuota: { lua: RELEASE_QUOTA },
};

/** Registers the store's scripts on a client and returns it typed with them. */
export function defineScripts(client: Redis | Cluster): StoreScripts {
  for (const [name, def] of Object.entries(SCRIPTS)) client.defineCommand(name, def);
  return client as unknown as StoreScripts;
}
