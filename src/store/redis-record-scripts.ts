/**
 * The Lua of the Redis store's small records (redis-retention.ts runs them): each operation on a
 * record is one script that keeps its class's and its owner's caps as it writes (docs/state.md).
 */

/**
 * Lua: stores record k[1] (member `member` of class index k[2]) for `ttl`. With an owner
 * (`owner_cap` not ''), it is also the newest in its owner's index k[3], and past `owner_cap`
 * that owner's oldest records go (never this one). Past `cap` the class's least recently used
 * records go. A record that goes takes its key (this key less its member) with it, and its place
 * in the class's index. An owner index may still name records that expired or that the class
 * pushed out: each counts until trimmed, so an owner never holds more than its cap of live ones.
 */
export const PUT_RECORD_FUNCTION = `
local function keep_past(index, ttl)
  if redis.call('PTTL', index) < tonumber(ttl) then redis.call('PEXPIRE', index, ttl) end
end
local function trim(index, member, cap, rec_prefix, class_index)
  local over = redis.call('ZCARD', index) - tonumber(cap)
  if over <= 0 then return end
  for _, m in ipairs(redis.call('ZRANGE', index, 0, over)) do
    if m ~= member and over > 0 then
      redis.call('ZREM', index, m)
      redis.call('DEL', rec_prefix .. m)
      if class_index then redis.call('ZREM', class_index, m) end
      over = over - 1
    end
  end
end
local function put_record(k, value, ttl, member, score, cap, owner_cap)
  local rec_prefix = string.sub(k[1], 1, #k[1] - #member)
  redis.call('SET', k[1], value, 'PX', ttl)
  if owner_cap ~= '' then
    redis.call('ZADD', k[3], score, member)
    trim(k[3], member, owner_cap, rec_prefix, k[2])
    keep_past(k[3], ttl)
  end
  redis.call('ZADD', k[2], score, member)
  trim(k[2], member, cap, rec_prefix, nil)
  keep_past(k[2], ttl)
  return 1
end
`;

/**
 * KEYS: record, class index, owner index (the class index again without an owner). ARGV: value,
 * ttl, member, score, cap, owner cap ('' without an owner) → 1 (PUT_RECORD_FUNCTION).
 */
export const PUT_RECORD = `${PUT_RECORD_FUNCTION}
return put_record(KEYS, ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
`;

/**
 * KEYS: record, class index, owner index (as PUT_RECORD). ARGV: expected ('' with ARGV[7] = '1':
 * none), value, ttl, member, score, cap, absent, owner cap → 1 when written, else 0. A string
 * `expected` never creates a record: it was deleted or pushed out on purpose. Only a claim counts
 * against the owner; a replace keeps the record's place in its owner's index.
 */
export const REPLACE_RECORD = `${PUT_RECORD_FUNCTION}
if ARGV[7] == '1' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
  return put_record(KEYS, ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[8])
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], 'XX', ARGV[5], ARGV[4])
keep_past(KEYS[2], ARGV[3])
return 1
`;

/** KEYS: record, class index. ARGV: touchTtl ('' = leave), member, score → the value | nil; a hit is marked used. */
export const GET_RECORD = `
local v = redis.call('GET', KEYS[1])
if not v then return nil end
if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
redis.call('ZADD', KEYS[2], 'XX', ARGV[3], ARGV[2])
return v
`;

/** KEYS: record, class index, owner index (as PUT_RECORD). ARGV: member → 1: the record and its places in the indexes go together. */
export const DELETE_RECORD = `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
`;

/**
 * GET_RECORD, then the conversation the record names (linked-read.ts `linkedHandle`, which this
 * mirrors: its JSON field, or with mode `value` its whole value), else the fallback handle, read as
 * GET_CONVERSATION reads it. KEYS: record, its class index, the conversation owner's index, the
 * conversations' class index, and the conversation key less its handle (`…conv:{c<k>}:<ownerTag>:`,
 * no key itself: a KEY so that it carries whatever prefix the client adds, as the others do). ARGV:
 * touchTtl or '', member, score, mode (`json` | `value`), field, owner tag, idleTtl, fallback or '' →
 * {record | false} | {record | false, handle} | {record | false, handle, HGETALL}. The conversation's
 * own key comes from the record, so it is not in KEYS: single-node and Sentinel only, never sent to
 * a Cluster.
 */
export const GET_RECORD_AND_CONVERSATION = `
local v = redis.call('GET', KEYS[1])
local handle = nil
if v then
  if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
  redis.call('ZADD', KEYS[2], 'XX', ARGV[3], ARGV[2])
  if ARGV[4] == 'value' then
    if v ~= '' then handle = v end
  else
    local ok, doc = pcall(cjson.decode, v)
    if ok and type(doc) == 'table' then
      local named = doc[ARGV[5]]
      if type(named) == 'string' and named ~= '' then handle = named end
    end
  end
end
if not handle and ARGV[8] ~= '' then handle = ARGV[8] end
if not handle then return {v} end
local conv = KEYS[5] .. handle
if redis.call('PEXPIRE', conv, ARGV[7]) == 0 then return {v, handle} end
redis.call('ZADD', KEYS[3], 'XX', ARGV[3], ':' .. handle)
redis.call('ZADD', KEYS[4], 'XX', ARGV[3], ARGV[6] .. ':' .. handle)
return {v, handle, redis.call('HGETALL', conv)}
`;
