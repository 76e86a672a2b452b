import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory.ts';
import { Conversations, cutChars } from './conversations.ts';
import { anonymousPrincipal } from './principal.ts';

const alice = anonymousPrincipal('127.0.0.1');
const bob = anonymousPrincipal('127.0.0.2');
const ask = (text: string, conversationId?: string) => ({ query: { text }, ...(conversationId ? { meta: { session_context: { conversation_id: conversationId } } } : {}) });

describe('cutChars', () => {
  it('keeps at most max UTF-16 units and never ends on half a surrogate pair (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: 0, max: 80 }), (text, max) => {
        const cut = cutChars(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(text.startsWith(cut)).toBe(true);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
        expect(/[\uD800-\uDBFF]$/.test(cut)).toBe(false);
      }),
    );
  });
});

describe('Conversations', () => {
  it('regression "a cut query kept the whole query alive" (issue 23 item 4): a held conversation holds only the characters it keeps', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const store = new MemoryStore();
    const conversations = new Conversations(store, { idleTtlMs: 60_000, maxPrev: 10, maxPrevItemChars: 100 });
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 100; i++) {
      const turn = await conversations.begin(ask(`${'x'.repeat(100_000)}${i}`), 'a', alice);
      await conversations.finish(turn, 'a');
    }
    gc();
    // 100 conversations of 100 kept characters; a kept slice of each 100,000-character query would be 10 MB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(1_000_000);
    await store.close();
  });

  it('stores each query cut to maxPrevItemChars, the total within maxPrevTotalChars (property around the caps)', async () => {
    const store = new MemoryStore();
    const conversations = new Conversations(store, { idleTtlMs: 60_000, maxPrev: 10, maxPrevItemChars: 50, maxPrevTotalChars: 120 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 40, max: 60 }), { minLength: 1, maxLength: 6 }), async (lengths) => {
        const id = `conv-property-${Math.random().toString(36).slice(2)}`;
        for (const n of lengths) {
          const turn = await conversations.begin(ask('x'.repeat(n), id), 'a', alice);
          await conversations.finish(turn, 'a');
        }
        const prev = (await conversations.begin(ask('next', id), 'a', alice)).view.prev;
        expect(prev.every((p) => p.length <= 50)).toBe(true);
        expect(prev.map((p) => p.length)).toEqual(lengths.slice(lengths.length - prev.length).map((n) => Math.min(n, 50)));
        expect(prev.reduce((t, p) => t + p.length, 0)).toBeLessThanOrEqual(120);
        expect(prev.length).toBeGreaterThanOrEqual(Math.min(lengths.length, 2));
      }),
      { numRuns: 40 },
    );
    await store.close();
  });

  it('refuses a short client-chosen id before reading the store, and names the minimum', async () => {
    const store = new MemoryStore();
    const conversations = new Conversations(store, { idleTtlMs: 60_000, maxPrev: 10 });
    await expect(conversations.begin(ask('q', 'short'), 'a', alice)).rejects.toMatchObject({ code: 'INVALID_QUERY', message: expect.stringContaining('at least 16') });
    await expect(conversations.begin({ query: { text: 'q' }, meta: { session_context: { conversation_id: 42 } } }, 'a', alice)).rejects.toMatchObject({ code: 'INVALID_QUERY' });
    await store.close();
  });

  it('one id, two owners: two conversations; aliases resolve only for the principal that bound them', async () => {
    const store = new MemoryStore();
    const conversations = new Conversations(store, { idleTtlMs: 60_000, maxPrev: 10 });
    const id = 'the-same-id-for-both-0001';
    await conversations.finish(await conversations.begin(ask('alice only', id), 'a', alice), 'a', { secret: 1 });
    const bobs = await conversations.begin(ask('bob', id), 'a', bob);
    expect(bobs.view).toMatchObject({ prev: [], attrs: {} });
    expect(bobs.conversationId).toBe(id);
    // The id adapters key upstream state by differs per owner (a legacy server's conversation_id).
    expect(bobs.view.id).not.toBe((await conversations.begin(ask('x', id), 'a', alice)).view.id);
    expect((await conversations.begin(ask('again', id), 'a', alice)).view).toMatchObject({ prev: ['alice only'], upstreamSession: { secret: 1 } });
    await conversations.bindAlias('nlip', 'token-of-alice', 'conv_x', alice);
    expect((await conversations.resolveAlias('nlip', 'token-of-alice', alice)).conversationId).toBe('conv_x');
    expect(await conversations.resolveAlias('nlip', 'token-of-alice', bob)).toEqual({ conversationId: null });
    await store.close();
  });

  it('an alias is read with the conversation it names, and begin takes that read only for the same conversation (issue 25)', async () => {
    const store = new MemoryStore();
    const conversations = new Conversations(store, { idleTtlMs: 60_000, maxPrev: 10 });
    const id = 'conversation-read-ahead-01';
    await conversations.finish(await conversations.begin(ask('first', id), 'a', alice), 'a');
    await conversations.bindAlias('nlip', 'token-of-alice', id, alice);
    const { conversationId, readAhead } = await conversations.resolveAlias('nlip', 'token-of-alice', alice);
    expect(conversationId).toBe(id);
    expect(readAhead?.record?.prev).toEqual(['first']);
    const reads: string[] = [];
    const get = store.getConversation.bind(store);
    store.getConversation = (key, ttl) => (reads.push(key), get(key, ttl));
    expect((await conversations.begin(ask('second', id), 'a', alice, readAhead)).request.context?.prev).toEqual(['first']);
    expect(reads).toEqual([]);
    // Another conversation than the one read ahead: read from the store.
    await conversations.begin(ask('elsewhere', 'another-conversation-0001'), 'a', alice, readAhead);
    expect(reads).toHaveLength(1);
    // A fallback handle is read when the alias names none.
    expect((await conversations.resolveAlias('webtool', 'no-such-alias-0001', alice, id)).readAhead?.record?.prev).toEqual(['first']);
    await store.close();
  });
});
