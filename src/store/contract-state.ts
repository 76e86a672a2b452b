/**
 * Store contract, part 2: cancel pub/sub across replicas, conversations, small records, rate-limit
 * windows, and bounded growth (design.md "State": every key has a life; nothing outlives it).
 */
import { describe, expect, it } from 'vitest';
import { answer, eventually, newToken, runningPromise, sleep, type StoreHarness } from './contract-helpers.ts';

const LONG = 60_000;
const turnOpts = { maxPrev: 3, idleTtlMs: LONG };

/** Registers the cancel, conversation, record, hit and growth cases of the Store contract. */
export function stateContract(h: () => StoreHarness): void {
  describe('cancel pub/sub', () => {
    it('publishCancel reaches the handlers of every replica, the publisher\'s own included', async () => {
      const { store } = h();
      const peer = await h().peer();
      const seenHere: string[] = [];
      const seenThere: string[] = [];
      await store.onCancel((t) => seenHere.push(t));
      await peer.onCancel((t) => seenThere.push(t));
      const token = newToken();
      await peer.publishCancel(token);
      await eventually(async () => [seenHere.length, seenThere.length], ([a, b]) => a === 1 && b === 1, 2000);
      expect(seenHere).toEqual([token]);
      expect(seenThere).toEqual([token]);
    });

    it('an unsubscribed handler hears nothing more while the others still do', async () => {
      const { store } = h();
      const peer = await h().peer();
      const gone: string[] = [];
      const kept: string[] = [];
      const unsubscribe = await peer.onCancel((t) => gone.push(t));
      await peer.onCancel((t) => kept.push(t));
      await unsubscribe();
      const token = newToken();
      await store.publishCancel(token);
      await eventually(async () => kept.length, (n) => n === 1, 2000);
      await sleep(30);
      expect(kept).toEqual([token]);
      expect(gone).toEqual([]);
    });

    it('a throwing handler does not stop delivery to the others', async () => {
      const { store } = h();
      const seen: string[] = [];
      await store.onCancel(() => {
        throw new Error('handler bug');
      });
      await store.onCancel((t) => seen.push(t));
      await store.publishCancel('t1');
      await eventually(async () => seen.length, (n) => n === 1, 2000);
    });
  });

  describe('topic pub/sub', () => {
    it('publishTopic reaches the handlers of that topic on every replica, and only of that topic', async () => {
      const { store } = h();
      const peer = await h().peer();
      const topic = `t-${newToken()}`;
      const here: string[] = [];
      const there: string[] = [];
      const other: string[] = [];
      await store.onTopic(topic, (m) => here.push(m));
      const stop = await peer.onTopic(topic, (m) => there.push(m));
      await peer.onTopic(`${topic}-other`, (m) => other.push(m));
      await store.publishTopic(topic, 'one');
      await eventually(async () => [here.length, there.length], ([a, b]) => a === 1 && b === 1, 2000);
      await stop();
      await peer.publishTopic(topic, 'two');
      await eventually(async () => here.length, (n) => n === 2, 2000);
      await sleep(30);
      expect(here).toEqual(['one', 'two']);
      expect(there).toEqual(['one']);
      expect(other).toEqual([]);
    });
  });

  describe('conversations', () => {
    it('getConversation of an unknown id is null', async () => {
      expect(await h().store.getConversation(newToken(), LONG)).toBeNull();
    });

    it('recordTurn creates the conversation, appends turns and keeps only the last maxPrev', async () => {
      const { store } = h();
      const id = newToken();
      await store.recordTurn(id, { query: 'one', agent: 'recipes' }, turnOpts);
      // A first turn holds its query and nothing else: no empty parts, no timestamps (issue 23 item 4).
      expect(await store.getConversation(id, LONG)).toEqual({ id, prev: ['one'], upstream: {}, attrs: {} });
      for (const q of ['two', 'three', 'four é 😀 "q" [1]', '5']) await store.recordTurn(id, { query: q, agent: 'recipes' }, turnOpts);
      const conv = await store.getConversation(id, LONG);
      expect(conv?.prev).toEqual(['three', 'four é 😀 "q" [1]', '5']);
    });

    it('recordTurn with maxPrev 0 keeps no previous queries', async () => {
      const { store } = h();
      const id = newToken();
      await store.recordTurn(id, { query: 'q', agent: 'a' }, { maxPrev: 0, idleTtlMs: LONG });
      expect(await store.getConversation(id, LONG)).toEqual({ id, prev: [], upstream: {}, attrs: {} });
    });

    it('recordTurn keeps each agent\'s upstream session; a turn without one leaves it as it was', async () => {
      const { store } = h();
      const id = newToken();
      await store.recordTurn(id, { query: 'a', agent: 'recipes', upstreamSession: { conversation_id: 'r1', n: [1, 2] } }, turnOpts);
      await store.recordTurn(id, { query: 'b', agent: 'weather', upstreamSession: { conversation_id: 'w1' } }, turnOpts);
      await store.recordTurn(id, { query: 'c', agent: 'recipes' }, turnOpts);
      await store.recordTurn(id, { query: 'd', agent: 'weather', upstreamSession: { conversation_id: 'w2' } }, turnOpts);
      expect(await store.getConversation(id, LONG)).toEqual({
        id,
        prev: ['b', 'c', 'd'],
        upstream: { recipes: { conversation_id: 'r1', n: [1, 2] }, weather: { conversation_id: 'w2' } },
        attrs: {},
      });
    });

    it('concurrent recordTurn calls from two replicas lose no turn', async () => {
      const { store } = h();
      const peer = await h().peer();
      const id = newToken();
      const queries = Array.from({ length: 30 }, (_, i) => `q${i}`);
      await Promise.all(queries.map((q, i) => (i % 2 ? store : peer).recordTurn(id, { query: q, agent: 'a' }, { maxPrev: 100, idleTtlMs: LONG })));
      const conv = await store.getConversation(id, LONG);
      expect([...(conv?.prev ?? [])].sort()).toEqual([...queries].sort());
    });

    it('setConversationAttr creates the conversation and sets attrs next to its turns', async () => {
      const { store } = h();
      const id = newToken();
      await store.setConversationAttr(id, 'nlip.token', 'tok-1', LONG);
      expect(await store.getConversation(id, LONG)).toMatchObject({ id, prev: [], upstream: {}, attrs: { 'nlip.token': 'tok-1' } });
      await store.recordTurn(id, { query: 'q', agent: 'a' }, turnOpts);
      await store.setConversationAttr(id, 'mcp:session', 'abc:def', LONG);
      await store.setConversationAttr(id, 'nlip.token', 'tok-2', LONG);
      expect(await store.getConversation(id, LONG)).toMatchObject({ prev: ['q'], attrs: { 'nlip.token': 'tok-2', 'mcp:session': 'abc:def' } });
    });

    it('a conversation expires after its idle TTL, and each read refreshes it', async () => {
      const { store } = h();
      const idle = newToken();
      const read = newToken();
      const opts = { maxPrev: 3, idleTtlMs: 600 };
      await store.recordTurn(idle, { query: 'q', agent: 'a' }, opts);
      await store.recordTurn(read, { query: 'q', agent: 'a' }, opts);
      const started = Date.now();
      await sleep(300);
      expect(await store.getConversation(read, 600)).not.toBeNull();
      await sleep(Math.max(0, started + 750 - Date.now()));
      expect(await store.getConversation(idle, 600)).toBeNull();
      // A read sets the idle TTL it is given (here a short one): then nothing else keeps it alive.
      expect(await store.getConversation(read, 150)).not.toBeNull();
      await sleep(350);
      expect(await store.getConversation(read, 150)).toBeNull();
    });
  });

  describe('records', () => {
    it('putRecord/getRecord/deleteRecord, with namespaces kept apart', async () => {
      const { store } = h();
      await store.putRecord('alias', 'x', 'conv-1', LONG);
      await store.putRecord('mcp-session', 'x', 'sess-1', LONG);
      expect(await store.getRecord('alias', 'x')).toBe('conv-1');
      expect(await store.getRecord('mcp-session', 'x')).toBe('sess-1');
      await store.putRecord('alias', 'x', 'conv-2', LONG);
      expect(await store.getRecord('alias', 'x')).toBe('conv-2');
      await store.deleteRecord('alias', 'x');
      expect(await store.getRecord('alias', 'x')).toBeNull();
      expect(await store.getRecord('mcp-session', 'x')).toBe('sess-1');
      await store.deleteRecord('alias', 'never-there');
    });

    it('replaceRecord replaces only the value it was given, and never creates a record', async () => {
      const { store } = h();
      await store.putRecord('mcp-session', 'cas', 'v1', LONG);
      expect(await store.replaceRecord('mcp-session', 'cas', 'stale', 'lost', LONG)).toBe(false);
      expect(await store.getRecord('mcp-session', 'cas')).toBe('v1');
      expect(await store.replaceRecord('mcp-session', 'cas', 'v1', 'v2', LONG)).toBe(true);
      expect(await store.getRecord('mcp-session', 'cas')).toBe('v2');
      // Two writers that read the same value: exactly one replaces it.
      const both = await Promise.all([store.replaceRecord('mcp-session', 'cas', 'v2', 'a', LONG), store.replaceRecord('mcp-session', 'cas', 'v2', 'b', LONG)]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await store.getRecord('mcp-session', 'cas')).toBe(both[0] ? 'a' : 'b');
      // Deleted (or never there): it stays absent.
      await store.deleteRecord('mcp-session', 'cas');
      expect(await store.replaceRecord('mcp-session', 'cas', 'a', 'back', LONG)).toBe(false);
      expect(await store.replaceRecord('mcp-session', 'cas', 'b', 'back', LONG)).toBe(false);
      expect(await store.replaceRecord('mcp-session', 'never-there', '', 'x', LONG)).toBe(false);
      expect(await store.getRecord('mcp-session', 'cas')).toBeNull();
      expect(await store.getRecord('mcp-session', 'never-there')).toBeNull();
    });

    it('replaceRecord with null claims a record only where there is none: of claims at once, exactly one wins', async () => {
      const { store } = h();
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => store.replaceRecord('mcp-session-stream', 'claim', null, `c${i}`, LONG)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.getRecord('mcp-session-stream', 'claim')).toBe(`c${claims.indexOf(true)}`);
      expect(await store.replaceRecord('mcp-session-stream', 'claim', null, 'again', LONG)).toBe(false);
      await store.deleteRecord('mcp-session-stream', 'claim');
      expect(await store.replaceRecord('mcp-session-stream', 'claim', null, 'after', LONG)).toBe(true);
      expect(await store.getRecord('mcp-session-stream', 'claim')).toBe('after');
      // An empty value is a value: a claim does not take it for none.
      await store.putRecord('mcp-session-stream', 'empty', '', LONG);
      expect(await store.replaceRecord('mcp-session-stream', 'empty', null, 'x', LONG)).toBe(false);
      expect(await store.replaceRecord('mcp-session-stream', 'empty', '', 'x', LONG)).toBe(true);
    });

    it('replaceRecord sets the TTL it is given, and an expired record is not replaced', async () => {
      const { store } = h();
      await store.putRecord('mcp-session', 'ttl', 'v', 300);
      expect(await store.replaceRecord('mcp-session', 'ttl', 'v', 'w', LONG)).toBe(true);
      await sleep(450);
      expect(await store.getRecord('mcp-session', 'ttl')).toBe('w');
      await store.putRecord('mcp-session', 'gone', 'v', 100);
      await eventually(() => store.getRecord('mcp-session', 'gone'), (v) => v === null, 2000);
      expect(await store.replaceRecord('mcp-session', 'gone', 'v', 'back', LONG)).toBe(false);
      expect(await store.getRecord('mcp-session', 'gone')).toBeNull();
    });

    it('a record expires after its TTL; a plain read does not extend it', async () => {
      const { store } = h();
      await store.putRecord('alias', 'short', 'v', 200);
      expect(await store.getRecord('alias', 'short')).toBe('v');
      await eventually(() => store.getRecord('alias', 'short'), (v) => v === null, 2000);
    });

    it('getRecord with touchTtlMs slides the expiry', async () => {
      const { store } = h();
      await store.putRecord('mcp-session', 'slide', 'v', 400);
      await store.putRecord('mcp-session', 'still', 'v', 400);
      const started = Date.now();
      await sleep(200);
      expect(await store.getRecord('mcp-session', 'slide', 400)).toBe('v');
      await sleep(Math.max(0, started + 500 - Date.now()));
      expect(await store.getRecord('mcp-session', 'still')).toBeNull();
      expect(await store.getRecord('mcp-session', 'slide')).toBe('v');
    });
  });

  describe('rate limiters', () => {
    it('allows `points` requests per window per key, refuses the next with a retry delay, and starts again after the window', async () => {
      const { store } = h();
      const limiter = store.limiter('contract', 3, 1000);
      const a = [];
      for (let i = 0; i < 4; i++) a.push(await limiter.consume('client-a'));
      expect(a.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(a[3]!.retryAfterMs).toBeGreaterThan(0);
      expect(a[3]!.retryAfterMs).toBeLessThanOrEqual(1000);
      expect((await limiter.consume('client-b')).allowed).toBe(true);
      await eventually(() => limiter.consume('client-a'), (d) => d.allowed, 3000);
    });

    it('limiters of different names or sizes count separately', async () => {
      const { store } = h();
      expect((await store.limiter('one', 1, 60_000).consume('k')).allowed).toBe(true);
      expect((await store.limiter('one', 1, 60_000).consume('k')).allowed).toBe(false);
      expect((await store.limiter('two', 1, 60_000).consume('k')).allowed).toBe(true);
    });

    it('concurrent requests from two replicas are all counted', async () => {
      const { store } = h();
      const peer = await h().peer();
      const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? store : peer).limiter('burst', 20, LONG).consume('k')));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    });
  });

  describe('growth and lifecycle', () => {
    it('bounded growth: after promises, conversations, records and limiter windows expire, the key count returns to its baseline', async () => {
      const { store } = h();
      const baseline = await h().keyCount();
      const now = Date.now();
      // Long enough that no key expires while a loaded CI machine is still writing the 80 of them.
      const ttl = 1_500;
      for (let i = 0; i < 20; i++) {
        // A mix: settled, left running with a live lease, and left running with a dead lease.
        const p = runningPromise({ leaseUntil: i % 3 === 0 ? now - 1 : now + LONG });
        await store.createPromise(p, ttl);
        if (i % 3 === 1) await store.settlePromise(p.token, { status: 'done', response: answer('x') }, ttl);
        await store.recordTurn(`conv-${i}`, { query: `q${i}`, agent: 'a', upstreamSession: { i } }, { maxPrev: 5, idleTtlMs: ttl });
        await store.setConversationAttr(`conv-${i}`, 'k', 'v', ttl);
        await store.putRecord('alias', `r${i}`, 'v', ttl);
        // Records written for an owner: their owners' indexes (Redis) go with them.
        await store.putRecord('a2a-task', `t${i}`, 'v', ttl, `owner${i % 4}`);
        await store.limiter('growth', 5, ttl).consume(`client-${i}`);
      }
      expect(await h().keyCount()).toBeGreaterThanOrEqual(baseline + 60);
      // Nothing reads these keys again: reclamation is the backend's own (sweep / Redis expiry).
      await eventually(() => h().keyCount(), (n) => n === baseline, 8000);
    }, 20_000);

    it('ping resolves while the backend is up', async () => {
      await expect(h().store.ping()).resolves.toBeUndefined();
    });
  });
}
