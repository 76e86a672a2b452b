import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownerTag } from '../../core/ownership.ts';
import { anonymousPrincipal } from '../../core/principal.ts';
import { MemoryStore } from '../../store/index.ts';
import { McpSessions, SESSION_NAMESPACE } from './sessions.ts';

const alice = { id: 'key:alice', name: 'alice', verified: true };
const bob = anonymousPrincipal('127.0.0.2');

describe('MCP sessions in the store', () => {
  it('any replica reads a session another created, until it is deleted', async () => {
    const store = new MemoryStore();
    const here = new McpSessions(store);
    const there = new McpSessions(store);
    const s = await here.create({ protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } }, alice);
    expect(s.id).toMatch(/^p\.mcp_[A-Za-z0-9_-]{22}$/); // alice is verified: her session id carries the store's mark
    expect(await there.get(s.id, alice)).toEqual(s);
    await there.setLogLevel(s, 'warning', alice);
    expect((await here.get(s.id, alice))?.logLevel).toBe('warning');
    await here.delete(s.id);
    expect(await there.get(s.id, alice)).toBeNull();
    await store.close();
  });

  it('the record names the session\'s conversation: none at first, then the one bound, kept by setLogLevel', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    const s = await sessions.create({ protocolVersion: '2025-11-25', capabilities: {} }, alice);
    expect(s.conversationId).toBeNull();
    expect((await sessions.get(s.id, alice))?.conversationId).toBeNull();
    await sessions.bindConversation(s, 'conv_0123456789abcdef', alice);
    const bound = (await sessions.get(s.id, alice))!;
    expect(bound.conversationId).toBe('conv_0123456789abcdef');
    await sessions.setLogLevel(bound, 'error', alice);
    expect(await sessions.get(s.id, alice)).toMatchObject({ conversationId: 'conv_0123456789abcdef', logLevel: 'error' });
    // The binding keeps the owner: nobody else reads the session, or its conversation, through it.
    expect(await sessions.get(s.id, bob)).toBeNull();
    await store.close();
  });

  it('calls that read the session before each other\'s change keep both changes (regression: a whole-record rewrite undid the other call\'s field)', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    const s = await sessions.create({ protocolVersion: '2025-11-25', capabilities: {} }, alice);
    const [a, b] = [(await sessions.get(s.id, alice))!, (await sessions.get(s.id, alice))!];
    await sessions.setLogLevel(a, 'error', alice);
    await sessions.bindConversation(b, 'conv_0123456789abcdef', alice);
    expect(await sessions.get(s.id, alice)).toMatchObject({ logLevel: 'error', conversationId: 'conv_0123456789abcdef' });
    // At once, too: each reads again what the other wrote.
    const [c, d] = [(await sessions.get(s.id, alice))!, (await sessions.get(s.id, alice))!];
    await Promise.all([sessions.setLogLevel(c, 'debug', alice), sessions.bindConversation(d, 'conv_fedcba9876543210', alice)]);
    expect(await sessions.get(s.id, alice)).toMatchObject({ logLevel: 'debug', conversationId: 'conv_fedcba9876543210' });
    await store.close();
  });

  it('any sequence of updates through stale session objects ends with the last value of each field (property)', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    const op = fc.record({ reader: fc.nat({ max: 2 }), field: fc.constantFrom('logLevel', 'conversationId'), value: fc.stringMatching(/^[a-z]{1,8}$/) });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const s = await sessions.create({ protocolVersion: '2025-11-25', capabilities: {} }, alice);
        // Three objects read at the start, as three calls in flight would hold them.
        const readers = [(await sessions.get(s.id, alice))!, (await sessions.get(s.id, alice))!, (await sessions.get(s.id, alice))!];
        const last: Record<string, string> = {};
        for (const { reader, field, value } of ops) {
          if (field === 'logLevel') await sessions.setLogLevel(readers[reader]!, value, alice);
          else await sessions.bindConversation(readers[reader]!, value, alice);
          last[field] = value;
        }
        expect(await sessions.get(s.id, alice)).toMatchObject(last);
        await sessions.delete(s.id);
      }),
      { numRuns: 80 },
    );
    await store.close();
  });

  it('an update to a deleted session stores nothing: it stays deleted', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    const s = (await sessions.get((await sessions.create({ protocolVersion: '2025-11-25', capabilities: {} }, alice)).id, alice))!;
    await sessions.delete(s.id);
    const size = store.size();
    await sessions.bindConversation(s, 'conv_0123456789abcdef', alice);
    await sessions.setLogLevel(s, 'error', alice);
    expect(await sessions.get(s.id, alice)).toBeNull();
    expect(store.size()).toBe(size);
    await store.close();
  });

  it('an update keeps the fields of a record this release does not know (rolling upgrade, either way)', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    const record = { protocolVersion: '2025-11-25', capabilities: {}, owner: ownerTag(alice), conversationId: null, fromALaterRelease: { kept: true } };
    await store.putRecord(SESSION_NAMESPACE, 'newer', JSON.stringify(record), 60_000);
    await sessions.bindConversation((await sessions.get('newer', alice))!, 'conv_0123456789abcdef', alice);
    expect(JSON.parse((await store.getRecord(SESSION_NAMESPACE, 'newer'))!)).toEqual({ ...record, conversationId: 'conv_0123456789abcdef' });
    await store.close();
  });

  it('a record written before conversationId existed reads with no conversationId at all (its binding is an alias)', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    await store.putRecord(SESSION_NAMESPACE, 'older', JSON.stringify({ protocolVersion: '2025-11-25', capabilities: {}, owner: ownerTag(alice) }), 60_000);
    const got = await sessions.get('older', alice);
    expect(got).not.toBeNull();
    expect(got).not.toHaveProperty('conversationId');
    await store.close();
  });

  it('a session belongs to the principal that initialised it: anyone else reads no session', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    const s = await sessions.create({ protocolVersion: '2025-11-25', capabilities: {} }, alice);
    expect(await sessions.get(s.id, bob)).toBeNull();
    expect(await sessions.get(s.id, alice)).not.toBeNull();
    await store.close();
  });

  it('maxSessionRecordBytes: just below the cap is stored, just above is refused and nothing is stored (property)', async () => {
    const store = new MemoryStore();
    const cap = 2048;
    const sessions = new McpSessions(store, cap);
    const capsWith = (pad: string) => ({ experimental: { padding: { pad } } });
    // The stored record is the facts plus the owner tag and the (empty) conversation: its size without padding, measured the same way.
    const bare = JSON.stringify({ protocolVersion: '2025-11-25', capabilities: capsWith(''), owner: ownerTag(alice), conversationId: null }).length;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -64, max: 64 }), async (delta) => {
        const pad = 'p'.repeat(cap - bare + delta);
        const sizeBefore = store.size();
        const attempt = sessions.create({ protocolVersion: '2025-11-25', capabilities: capsWith(pad) }, alice);
        if (bare + pad.length <= cap) {
          await expect(attempt).resolves.toMatchObject({ protocolVersion: '2025-11-25' });
          expect(store.size()).toBe(sizeBefore + 1);
        } else {
          await expect(attempt).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
          expect(store.size()).toBe(sizeBefore);
        }
      }),
      { numRuns: 60 },
    );
    await store.close();
  });

  it('treats a damaged record as no session (property)', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ protocolVersion: v, capabilities: v }))), async (raw) => {
        await store.putRecord(SESSION_NAMESPACE, 'damaged', raw, 60_000);
        const got = await sessions.get('damaged', alice);
        if (got !== null) expect(typeof got.protocolVersion).toBe('string');
      }),
      { numRuns: 100 },
    );
    await store.close();
  });
});
