/**
 * Store contract, part 5: a record read with the conversation it names (issue 25). A 2025 MCP
 * session's record names the conversation its calls continue; reading both at once takes one Redis
 * round trip instead of two, and must read each exactly as getRecord and getConversation would.
 */
import { describe, expect, it } from 'vitest';
import { sleep, type StoreHarness } from './contract-helpers.ts';
import type { ConversationLink } from './store.ts';

const LONG = 60_000;
const turn = { maxPrev: 5, idleTtlMs: LONG };
const ALICE = 'p.aliceTagAliceTagAliceT';
const link = (ownerTag: string, idleTtlMs = LONG): ConversationLink => ({ field: 'conversationId', ownerTag, idleTtlMs });

/** Registers the linked-read cases of the Store contract. */
export function linkedContract(h: () => StoreHarness): void {
  describe('a record read with the conversation it names (getRecordAndConversation)', () => {
    it('reads a named conversation as getConversation does, in the caller\'s namespace', async () => {
      const { store } = h();
      await store.recordTurn('eveTag:c1', { query: 'first', agent: 'x', upstreamSession: { s: 1 } }, turn);
      await store.putRecord('mcp-session', 's1', JSON.stringify({ protocolVersion: '2025-11-25', conversationId: 'c1' }), LONG);
      const read = await store.getRecordAndConversation('mcp-session', 's1', LONG, link('eveTag'));
      expect(read.record).toBe(JSON.stringify({ protocolVersion: '2025-11-25', conversationId: 'c1' }));
      expect(read.conversation).toEqual({ id: 'eveTag:c1', record: await store.getConversation('eveTag:c1', LONG) });
      expect(read.conversation?.record?.prev).toEqual(['first']);
      // Another owner's namespace holds no such conversation: the handle names nothing there.
      expect((await store.getRecordAndConversation('mcp-session', 's1', LONG, link(ALICE))).conversation).toEqual({ id: `${ALICE}:c1`, record: null });
    });

    it('names no conversation for a missing record, or one whose field is not a non-empty string', async () => {
      const { store } = h();
      expect(await store.getRecordAndConversation('mcp-session', 'none', LONG, link('eveTag'))).toEqual({ record: null });
      await store.recordTurn('eveTag:c1', { query: 'q', agent: 'x' }, turn);
      for (const raw of ['c1', '["c1"]', '"c1"', '{"conversationId":null}', '{"conversationId":""}', '{"conversationId":1}', '{"conversationId":["c1"]}', '{"other":"c1"}', '{"conversationId":"c1"']) {
        await store.putRecord('mcp-session', 's', raw, LONG);
        expect(await store.getRecordAndConversation('mcp-session', 's', LONG, link('eveTag')), raw).toEqual({ record: raw });
      }
    });

    it('without a field, the record\'s whole value names the conversation (an alias); with a fallback, a missing record or one naming none reads that', async () => {
      const { store } = h();
      await store.recordTurn('eveTag:c1', { query: 'one', agent: 'x' }, turn);
      await store.recordTurn('eveTag:derived', { query: 'two', agent: 'x' }, turn);
      await store.putRecord('alias:webtool', 'a1', 'c1', LONG);
      const alias = { ownerTag: 'eveTag', idleTtlMs: LONG, fallback: 'derived' };
      expect(await store.getRecordAndConversation('alias:webtool', 'a1', LONG, alias)).toEqual({ record: 'c1', conversation: { id: 'eveTag:c1', record: await store.getConversation('eveTag:c1', LONG) } });
      expect(await store.getRecordAndConversation('alias:webtool', 'none', LONG, alias)).toEqual({ record: null, conversation: { id: 'eveTag:derived', record: await store.getConversation('eveTag:derived', LONG) } });
      await store.putRecord('alias:webtool', 'empty', '', LONG);
      expect((await store.getRecordAndConversation('alias:webtool', 'empty', LONG, alias)).conversation?.id).toBe('eveTag:derived');
      await store.putRecord('mcp-session', 's', '{"conversationId":null}', LONG);
      expect((await store.getRecordAndConversation('mcp-session', 's', LONG, { ...link('eveTag'), fallback: 'derived' })).conversation?.record?.prev).toEqual(['two']);
      expect(await store.getRecordAndConversation('alias:webtool', 'none', LONG, { ownerTag: 'eveTag', idleTtlMs: LONG })).toEqual({ record: null });
    });

    it('refreshes the record\'s TTL and the conversation\'s idle TTL', async () => {
      const { store } = h();
      await store.recordTurn(`${ALICE}:c1`, { query: 'q', agent: 'x' }, { maxPrev: 5, idleTtlMs: 300 });
      await store.putRecord('mcp-session', 'p.s1', '{"conversationId":"c1"}', 300);
      for (let i = 0; i < 4; i++) {
        await sleep(120);
        expect((await store.getRecordAndConversation('mcp-session', 'p.s1', 300, link(ALICE, 300))).conversation?.record?.prev).toEqual(['q']);
      }
      // 480 ms after both were written for 300: kept alive by the reads; then both expire.
      await sleep(500);
      expect(await store.getRecord('mcp-session', 'p.s1')).toBeNull();
      expect(await store.getConversation(`${ALICE}:c1`, LONG)).toBeNull();
    });

    it('marks the named conversation used, as getConversation does: an owner past its cap recycles another', async () => {
      const store = await h().capped({ maxConversationsPerOwner: 2 });
      await store.recordTurn('eveTag:c1', { query: 'one', agent: 'x' }, turn);
      await sleep(5);
      await store.recordTurn('eveTag:c2', { query: 'two', agent: 'x' }, turn);
      await sleep(5);
      await store.putRecord('mcp-session', 's1', '{"conversationId":"c1"}', LONG);
      await store.getRecordAndConversation('mcp-session', 's1', LONG, link('eveTag'));
      await sleep(5);
      await store.recordTurn('eveTag:c3', { query: 'three', agent: 'x' }, turn);
      expect(await store.getConversation('eveTag:c1', LONG)).not.toBeNull();
      expect(await store.getConversation('eveTag:c2', LONG)).toBeNull();
    });
  });
}
