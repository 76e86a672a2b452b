import type { ConversationLink, LinkedRecord, Store } from './store.ts';

/**
 * The conversation handle a record names (Store.getRecordAndConversation): the string in `field` of
 * the record's JSON object, when it is one and not empty; without `field`, the whole value when not
 * empty. The Redis store's script reads it the same way in Lua (GET_RECORD_AND_CONVERSATION); a
 * property test holds the two alike (test/store/redis-commands.test.ts).
 */
export function linkedHandle(raw: string, field: string | undefined): string | null {
  if (field === undefined) return raw === '' ? null : raw;
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return null;
  const handle = (doc as Record<string, unknown>)[field];
  return typeof handle === 'string' && handle !== '' ? handle : null;
}

/** The store id of the conversation `handle` in `ownerTag`'s namespace (core/ownership.ts `scopedId`'s form). */
export const linkedConversationId = (ownerTag: string, handle: string): string => `${ownerTag}:${handle}`;

/** The store id of the conversation a record read links to (its handle, else the link's fallback), or null for none. */
export function linkedConversationOf(record: string | null, link: ConversationLink): string | null {
  const handle = (record === null ? null : linkedHandle(record, link.field)) ?? (link.fallback || null);
  return handle === null ? null : linkedConversationId(link.ownerTag, handle);
}

/** Store.getRecordAndConversation as two reads in turn: for a store that cannot make them one. */
export async function readLinkedInTurn(store: Pick<Store, 'getRecord' | 'getConversation'>, namespace: string, id: string, touchTtlMs: number | undefined, link: ConversationLink): Promise<LinkedRecord> {
  const record = await store.getRecord(namespace, id, touchTtlMs);
  const conversationId = linkedConversationOf(record, link);
  if (conversationId === null) return { record };
  return { record, conversation: { id: conversationId, record: await store.getConversation(conversationId, link.idleTtlMs) } };
}
