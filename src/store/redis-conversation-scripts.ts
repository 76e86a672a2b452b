/**
 * The conversation scripts of the Redis store (redis-retention.ts runs them): a turn, an attr and a
 * read, each one script that keeps the retention caps as it writes (issues 24 and 25). Key layout:
 * docs/state.md "State model" and redis-retention.ts.
 */
import { PUT_RECORD_FUNCTION } from './redis-record-scripts.ts';

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
export const RECORD_TURN = `${RETAIN_CONVERSATION}${TURN}return 1
`;

/**
 * RECORD_TURN, then a small record stored as PUT_RECORD stores it (Store.recordTurn `record`): one
 * round trip instead of two. KEYS: conversation, owner index, class index, record, its class index,
 * its owner index. ARGV: RECORD_TURN's twelve, then PUT_RECORD's six. Only where every key is on one
 * connection: conversations and records have hash tags of their own (a Cluster splits them).
 */
export const RECORD_TURN_AND_PUT = `${RETAIN_CONVERSATION}${PUT_RECORD_FUNCTION}${TURN}put_record({ KEYS[4], KEYS[5], KEYS[6] }, ARGV[13], ARGV[14], ARGV[15], ARGV[16], ARGV[17], ARGV[18])
return 1
`;

/** KEYS: conversation, owner index, class index. ARGV: id, field, value, idleTtl, then the retention's → 1. */
export const SET_CONVERSATION_ATTR = `${RETAIN_CONVERSATION}
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
export const GET_CONVERSATION = `
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return nil end
redis.call('ZADD', KEYS[2], 'XX', ARGV[4], ARGV[2])
redis.call('ZADD', KEYS[3], 'XX', ARGV[4], ARGV[3])
return redis.call('HGETALL', KEYS[1])
`;
