/**
 * How store records map onto Redis hashes (docs/state.md "State model"). Scalars the Lua scripts
 * compare (status, owner, leaseUntil) are plain hash fields; nested JSON (response, request,
 * upstream sessions) is stored as opaque JSON strings that only TypeScript parses.
 */
import type { ConversationRecord, PromiseRecord } from './store.ts';

const NUMBER_FIELDS = ['leaseUntil', 'createdAt', 'updatedAt', 'progress', 'estimatedTime'] as const;
const STRING_FIELDS = ['token', 'agent', 'status', 'owner', 'message', 'upstreamToken', 'conversationId', 'principal'] as const;
const JSON_FIELDS = ['response', 'request'] as const;

/** Flattens a promise record into HSET field/value pairs (absent optional fields are left out). */
export function promiseToFields(record: Partial<PromiseRecord>): string[] {
  const out: string[] = [];
  const r = record as Record<string, unknown>;
  for (const f of [...NUMBER_FIELDS, ...STRING_FIELDS]) {
    if (r[f] !== undefined && r[f] !== null) out.push(f, String(r[f]));
  }
  for (const f of JSON_FIELDS) {
    if (r[f] !== undefined) out.push(f, JSON.stringify(r[f]));
  }
  return out;
}

/** Turns an HGETALL reply (object or flat [field, value, …] array) into pairs. */
function pairs(reply: Record<string, string> | string[]): Array<[string, string]> {
  if (!Array.isArray(reply)) return Object.entries(reply);
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < reply.length; i += 2) out.push([reply[i] as string, reply[i + 1] as string]);
  return out;
}

/** Rebuilds a promise record from its hash; null when the hash is empty (gone or expired). */
export function promiseFromHash(reply: Record<string, string> | string[] | null): PromiseRecord | null {
  if (reply === null) return null;
  const entries = pairs(reply);
  if (entries.length === 0) return null;
  const r: Record<string, unknown> = {};
  for (const [field, value] of entries) {
    if ((NUMBER_FIELDS as readonly string[]).includes(field)) r[field] = Number(value);
    else if ((JSON_FIELDS as readonly string[]).includes(field)) r[field] = JSON.parse(value);
    else r[field] = value;
  }
  return r as unknown as PromiseRecord;
}

/**
 * Rebuilds a conversation from its hash (redis-retention.ts): `p` (the previous queries, a JSON
 * array), `u:<agent>` (that agent's upstream session_context, JSON), `a:<key>` (an attr). Null when
 * the hash is empty. Fields it does not know are skipped.
 */
export function conversationFromHash(id: string, reply: string[] | null): ConversationRecord | null {
  if (reply === null || reply.length === 0) return null;
  const conv: ConversationRecord = { id, prev: [], upstream: {}, attrs: {} };
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const field = reply[i]!;
    const value = reply[i + 1]!;
    if (field === 'p') {
      const prev: unknown = JSON.parse(value);
      conv.prev = Array.isArray(prev) ? prev.map(String) : [];
    } else if (field.startsWith('u:')) {
      conv.upstream[field.slice(2)] = JSON.parse(value) as Record<string, unknown>;
    } else if (field.startsWith('a:')) {
      conv.attrs[field.slice(2)] = value;
    }
  }
  return conv;
}
