/**
 * Store contract, part 4: what a store keeps under pressure (issue 24, hole 3). Verified
 * principals' state and anonymous callers' state are capped apart, and each owner's conversations
 * apart, so no caller can push out another's state: anonymous traffic only ever recycles anonymous
 * state, and an owner past its quota recycles its own oldest. Keys of verified principals' state
 * start with VERIFIED_OWNER_MARK (`p.`), as the gateway builds them.
 */
import { describe, expect, it } from 'vitest';
import { eventually, sleep, type StoreHarness } from './contract-helpers.ts';

const LONG = 60_000;
const turn = { maxPrev: 5, idleTtlMs: LONG };
const ALICE = 'p.aliceTagAliceTagAliceT';

/** Registers the per-owner and per-class retention cases of the Store contract. */
export function retentionContract(h: () => StoreHarness): void {
  describe('retention per owner and per class (issue 24, hole 3)', () => {
    it('regression "anonymous traffic evicts authenticated users\' state": anonymous conversations and records push out only anonymous ones', async () => {
      const store = await h().capped({ maxConversations: 3, maxRecords: 3 });
      await store.recordTurn(`${ALICE}:conv`, { query: 'mine', agent: 'x' }, turn);
      await store.putRecord('mcp-session', 'p.mcp_alice', 'session', LONG);
      for (let i = 0; i < 30; i++) {
        await store.recordTurn(`anon${i}:conv`, { query: `flood ${i}`, agent: 'x' }, turn);
        await store.putRecord('mcp-session', `mcp_anon${i}`, 'session', LONG);
      }
      expect((await store.getConversation(`${ALICE}:conv`, LONG))?.prev).toEqual(['mine']);
      expect(await store.getRecord('mcp-session', 'p.mcp_alice', LONG)).toBe('session');
      // The anonymous class holds only its cap: the latest three, least recently used gone first.
      const kept: number[] = [];
      for (let i = 0; i < 30; i++) if (await store.getRecord('mcp-session', `mcp_anon${i}`)) kept.push(i);
      expect(kept).toEqual([27, 28, 29]);
      expect(await store.getConversation('anon26:conv', LONG)).toBeNull();
      for (const i of [27, 28, 29]) expect((await store.getConversation(`anon${i}:conv`, LONG))?.prev).toEqual([`flood ${i}`]);
    });

    it('verified principals\' state is capped too, apart: many principals push out the oldest verified conversation, no anonymous one', async () => {
      const store = await h().capped({ maxConversations: 2 });
      await store.recordTurn('anonX:conv', { query: 'anon', agent: 'x' }, turn);
      for (const who of ['p.one', 'p.two', 'p.three']) await store.recordTurn(`${who}:conv`, { query: who, agent: 'x' }, turn);
      expect(await store.getConversation('p.one:conv', LONG)).toBeNull();
      expect(await store.getConversation('p.three:conv', LONG)).not.toBeNull();
      expect((await store.getConversation('anonX:conv', LONG))?.prev).toEqual(['anon']);
    });

    it('an owner past maxConversationsPerOwner recycles its own oldest conversation, never another owner\'s', async () => {
      const store = await h().capped({ maxConversationsPerOwner: 2 });
      await store.recordTurn('bob:one', { query: 'b1', agent: 'x' }, turn);
      for (const c of ['one', 'two', 'three']) await store.recordTurn(`eve:${c}`, { query: c, agent: 'x' }, turn);
      expect(await store.getConversation('eve:one', LONG)).toBeNull();
      expect((await store.getConversation('eve:three', LONG))?.prev).toEqual(['three']);
      expect((await store.getConversation('bob:one', LONG))?.prev).toEqual(['b1']);
      // Reading makes one's own conversation the most recently used: the other one goes next.
      expect(await store.getConversation('eve:two', LONG)).not.toBeNull();
      await store.setConversationAttr('eve:four', 'k', 'v', LONG);
      expect(await store.getConversation('eve:three', LONG)).toBeNull();
      expect(await store.getConversation('eve:two', LONG)).not.toBeNull();
      expect((await store.getConversation('eve:four', LONG))?.attrs).toEqual({ k: 'v' });
    });

    it('regression "an owner over its quota pushed another owner\'s conversation out of the class too": what the owner recycles makes room first', async () => {
      const store = await h().capped({ maxConversations: 2, maxConversationsPerOwner: 1 });
      await store.recordTurn('bob:one', { query: 'b1', agent: 'x' }, turn);
      await store.recordTurn('eve:one', { query: 'e1', agent: 'x' }, turn);
      // eve's second conversation recycles her first: the class holds two again, bob's among them.
      await store.recordTurn('eve:two', { query: 'e2', agent: 'x' }, turn);
      expect(await store.getConversation('eve:one', LONG)).toBeNull();
      expect((await store.getConversation('bob:one', LONG))?.prev).toEqual(['b1']);
      expect((await store.getConversation('eve:two', LONG))?.prev).toEqual(['e2']);
    });

    it('a deleted record no longer counts against its class\'s cap', async () => {
      const store = await h().capped({ maxRecords: 2 });
      await store.putRecord('alias', 'a', '1', LONG);
      await store.putRecord('alias', 'b', '2', LONG);
      await store.deleteRecord('alias', 'a');
      await store.putRecord('alias', 'c', '3', LONG);
      expect(await store.getRecord('alias', 'b')).toBe('2');
      expect(await store.getRecord('alias', 'c')).toBe('3');
    });

    it('a record created by a claim (replaceRecord with null) is capped as putRecord\'s are, and a replaced one keeps its one place', async () => {
      const store = await h().capped({ maxRecords: 2 });
      expect(await store.replaceRecord('mcp-session-stream', 'a', null, '1', LONG)).toBe(true);
      await sleep(5);
      expect(await store.replaceRecord('mcp-session-stream', 'b', null, '1', LONG)).toBe(true);
      // Replacing b's value keeps the class at two records (a read would make a the most recent: none here).
      expect(await store.replaceRecord('mcp-session-stream', 'b', '1', '2', LONG)).toBe(true);
      await sleep(5);
      expect(await store.replaceRecord('mcp-session-stream', 'c', null, '1', LONG)).toBe(true);
      expect(await store.getRecord('mcp-session-stream', 'a')).toBeNull();
      expect(await store.getRecord('mcp-session-stream', 'b')).toBe('2');
      expect(await store.getRecord('mcp-session-stream', 'c')).toBe('1');
    });
  });

  describe('records per owner (maxRecordsPerOwner)', () => {
    it('regression "one anonymous caller\'s A2A tasks pushed every other anonymous caller\'s sessions out": an owner recycles only its own records', async () => {
      const store = await h().capped({ maxRecords: 6, maxRecordsPerOwner: 2 });
      await store.putRecord('mcp-session', 'mcp_bob', 'bob session', LONG, 'bobTag');
      await store.putRecord('a2a-task', 'task_bob', 'bob task', LONG, 'bobTag');
      for (let i = 0; i < 30; i++) await store.putRecord('a2a-task', `task_eve${i}`, `eve ${i}`, LONG, 'eveTag');
      expect(await store.getRecord('mcp-session', 'mcp_bob')).toBe('bob session');
      expect(await store.getRecord('a2a-task', 'task_bob')).toBe('bob task');
      const kept: number[] = [];
      for (let i = 0; i < 30; i++) if (await store.getRecord('a2a-task', `task_eve${i}`)) kept.push(i);
      expect(kept).toEqual([28, 29]);
    });

    it('the cap is per namespace: an owner\'s tasks never push out its own session', async () => {
      const store = await h().capped({ maxRecordsPerOwner: 2 });
      await store.putRecord('mcp-session', 'mcp_eve', 'session', LONG, 'eveTag');
      for (let i = 0; i < 5; i++) await store.putRecord('a2a-task', `task_${i}`, 'task', LONG, 'eveTag');
      expect(await store.getRecord('mcp-session', 'mcp_eve')).toBe('session');
      expect(await store.getRecord('a2a-task', 'task_2')).toBeNull();
      expect(await store.getRecord('a2a-task', 'task_4')).toBe('task');
    });

    it('records written without an owner are capped by their class only', async () => {
      const store = await h().capped({ maxRecords: 10, maxRecordsPerOwner: 1 });
      for (let i = 0; i < 5; i++) await store.putRecord('mcp-session-stream', `s${i}`, 'v', LONG);
      for (let i = 0; i < 5; i++) expect(await store.getRecord('mcp-session-stream', `s${i}`)).toBe('v');
    });

    it('a claim counts against its owner; a replace keeps the record\'s place (oldest written first)', async () => {
      const store = await h().capped({ maxRecordsPerOwner: 2 });
      expect(await store.replaceRecord('mcp-task', 'one', null, '1', LONG, 'eveTag')).toBe(true);
      await sleep(5);
      await store.putRecord('mcp-task', 'two', '1', LONG, 'eveTag');
      expect(await store.replaceRecord('mcp-task', 'one', '1', '2', LONG)).toBe(true);
      await sleep(5);
      expect(await store.replaceRecord('mcp-task', 'three', null, '1', LONG, 'eveTag')).toBe(true);
      expect(await store.getRecord('mcp-task', 'one')).toBeNull();
      expect(await store.getRecord('mcp-task', 'two')).toBe('1');
      expect(await store.getRecord('mcp-task', 'three')).toBe('1');
    });

    it('a deleted or expired record leaves its owner room: the owner\'s live records are never fewer than its cap allows', async () => {
      const store = await h().capped({ maxRecordsPerOwner: 2 });
      await store.putRecord('a2a-task', 'gone', 'v', LONG, 'eveTag');
      await store.putRecord('a2a-task', 'short', 'v', 100, 'eveTag');
      await store.putRecord('a2a-task', 'kept', 'v', LONG, 'eveTag');
      await store.deleteRecord('a2a-task', 'gone', 'eveTag');
      await sleep(150);
      await store.putRecord('a2a-task', 'new', 'v', LONG, 'eveTag');
      expect(await store.getRecord('a2a-task', 'kept')).toBe('v');
      expect(await store.getRecord('a2a-task', 'new')).toBe('v');
    });

    it('recordTurn with a record writes the turn and the record (issue 25: one round trip), the record capped as putRecord\'s', async () => {
      const store = await h().capped({ maxRecordsPerOwner: 2 });
      const write = (id: string, ttlMs = LONG) => ({ namespace: 'a2a-task', id, value: `task ${id}`, ttlMs, owner: 'eveTag' });
      await store.putRecord('a2a-task', 'first', 'v', LONG, 'eveTag');
      await sleep(5);
      await store.recordTurn('eveTag:conv', { query: 'one', agent: 'x', upstreamSession: { s: 1 } }, turn, write('second'));
      await sleep(5);
      await store.recordTurn('eveTag:conv', { query: 'two', agent: 'x' }, turn, write('third'));
      expect(await store.getConversation('eveTag:conv', LONG)).toEqual({ id: 'eveTag:conv', prev: ['one', 'two'], upstream: { x: { s: 1 } }, attrs: {} });
      expect(await store.getRecord('a2a-task', 'first')).toBeNull();
      expect(await store.getRecord('a2a-task', 'second')).toBe('task second');
      expect(await store.getRecord('a2a-task', 'third')).toBe('task third');
      // The record keeps its own TTL, not the conversation's.
      await store.recordTurn(`${ALICE}:conv`, { query: 'q', agent: 'x' }, turn, { namespace: 'a2a-task', id: 'p.short', value: 'v', ttlMs: 150 });
      await eventually(() => store.getRecord('a2a-task', 'p.short'), (v) => v === null, 2000);
      expect((await store.getConversation(`${ALICE}:conv`, LONG))?.prev).toEqual(['q']);
    });

    it('a verified owner\'s records and an anonymous owner\'s are counted apart even under one tag', async () => {
      const store = await h().capped({ maxRecordsPerOwner: 1 });
      await store.putRecord('alias:webtool', 'p.handleA', 'conv-a', LONG, 'p.aliceTag');
      await store.putRecord('alias:webtool', 'handleB', 'conv-b', LONG, 'anonTag');
      await store.putRecord('alias:webtool', 'handleC', 'conv-c', LONG, 'anonTag');
      expect(await store.getRecord('alias:webtool', 'p.handleA')).toBe('conv-a');
      expect(await store.getRecord('alias:webtool', 'handleB')).toBeNull();
      expect(await store.getRecord('alias:webtool', 'handleC')).toBe('conv-c');
    });
  });

  describe('blobs (issue 24: uploads held as bytes, not base64 text)', () => {
    it('putBlob keeps every byte value and the text beside it exactly, for every replica', async () => {
      const { store } = h();
      const bytes = Buffer.alloc(256 * 3);
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
      await store.putBlob('nlip-upload', 'b1', { meta: '{"name":"é.bin"}', bytes }, LONG);
      const read = await (await h().peer()).getBlob('nlip-upload', 'b1');
      expect(read?.meta).toBe('{"name":"é.bin"}');
      expect(Buffer.from(read!.bytes).equals(bytes)).toBe(true);
      expect(await store.getBlob('nlip-upload', 'other')).toBeNull();
    });

    it('a blob is forgotten when its time is up, and nothing of it is left behind', async () => {
      const { store } = h();
      const baseline = await h().keyCount();
      await store.putBlob('nlip-upload', 'short', { meta: '{}', bytes: Buffer.alloc(1024, 1) }, 300);
      expect(await h().keyCount()).toBe(baseline + 1);
      await sleep(350);
      expect(await store.getBlob('nlip-upload', 'short')).toBeNull();
      await eventually(() => h().keyCount(), (n) => n === baseline, 4000);
    });

    it('blobs are not small records: a flood of records never pushes one out', async () => {
      const store = await h().capped({ maxRecords: 2 });
      await store.putBlob('nlip-upload', 'kept', { meta: '{}', bytes: Buffer.from('bytes') }, LONG);
      for (let i = 0; i < 10; i++) await store.putRecord('mcp-session', `s${i}`, 'v', LONG);
      expect(Buffer.from((await store.getBlob('nlip-upload', 'kept'))!.bytes).toString()).toBe('bytes');
    });
  });
}
