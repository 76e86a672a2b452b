/**
 * Issue 11: "another caller can use (or DELETE) someone's MCP session" and "an MCP initialize with
 * 1 MB of capabilities is stored 24 h". A 2025 session belongs to the principal that initialised it;
 * anyone else gets 404 "Session not found", exactly as for a session that never existed. An
 * `initialize` whose facts exceed `limits.maxSessionRecordBytes` is a JSON-RPC error and stores nothing.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../../src/store/memory.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { alice, bob, McpSession } from './owner-support.ts';

let gw: TestGateway;
const MAX_RECORD = 4096;
beforeAll(async () => {
  gw = await startGateway({ limits: { maxSessionRecordBytes: MAX_RECORD }, agents: [{ name: 'bot', kind: 'scripted' }] });
});
afterAll(() => gw?.close());

const held = () => (gw.gateway.store as MemoryStore).size();

describe('MCP sessions belong to their initialiser', () => {
  it('MCP session used by another caller: 404 Session not found, the same as an unknown session', async () => {
    const mine = await McpSession.open(`${gw.url}/mcp`, alice);
    const unknown = await new McpSession(mine.url, 'mcp_AAAAAAAAAAAAAAAAAAAAAA', bob).rpc('tools/list');
    expect(unknown).toEqual({ status: 404, message: { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null } });
    const theirs = mine.as(bob);
    expect(await theirs.rpc('tools/list')).toEqual(unknown);
    expect(await theirs.call('ask', { query: { text: 'count:1' } })).toEqual(unknown);
    expect(await theirs.listenStatus()).toBe(404);
  });

  it('MCP session DELETEd by another caller: 404, and the session still works for its owner', async () => {
    const mine = await McpSession.open(`${gw.url}/mcp`, alice);
    const unknownDelete = await new McpSession(mine.url, 'mcp_AAAAAAAAAAAAAAAAAAAAAA', bob).remove();
    expect(unknownDelete.status).toBe(404);
    expect(await mine.as(bob).remove()).toEqual(unknownDelete);
    const still = await mine.rpc('tools/list');
    expect(still.status).toBe(200);
    expect((await mine.remove()).status).toBe(200);
    expect((await mine.rpc('tools/list')).status).toBe(404);
  });
});

describe('maxSessionRecordBytes', () => {
  it('an initialize with 1 MB of capabilities is refused with a JSON-RPC error and nothing is stored', async () => {
    const before = held();
    const big = { experimental: { padding: { blob: 'x'.repeat(1_000_000) } } };
    const refused = await McpSession.initialize(`${gw.url}/mcp`, alice, big);
    expect(refused.status).toBe(413);
    expect(refused.sessionId).toBeNull();
    expect(refused.message?.error?.code).toBe(-32600);
    expect(refused.message?.error?.message).toContain(`at most ${MAX_RECORD}`);
    expect(held()).toBe(before);
  });

  it('just below the cap a session is made, just above it none is (property over sizes around the cap)', async () => {
    // Find the capabilities size at which the stored record reaches the cap, then probe around it.
    const sized = (n: number) => ({ experimental: { padding: { blob: 'y'.repeat(n) } } });
    let lo = 0;
    let hi = MAX_RECORD;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const r = await McpSession.initialize(`${gw.url}/mcp`, alice, sized(mid));
      if (r.status === 200) lo = mid;
      else hi = mid - 1;
    }
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -40, max: 40 }), async (delta) => {
        const before = held();
        const r = await McpSession.initialize(`${gw.url}/mcp`, alice, sized(lo + delta));
        if (delta <= 0) {
          expect(r.status).toBe(200);
          expect(r.sessionId).toMatch(/^mcp_/);
          expect(held()).toBe(before + 1);
        } else {
          expect(r.status).toBe(413);
          expect(r.sessionId).toBeNull();
          expect(held()).toBe(before);
        }
      }),
      { numRuns: 30 },
    );
    // The boundary is the cap itself, not somewhere else: the accepted record is close to it.
    expect(lo).toBeGreaterThan(MAX_RECORD - 300);
  }, 90_000);
});
