import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../store/index.ts';
import { McpSessions, SESSION_NAMESPACE } from './sessions.ts';

describe('MCP sessions in the store', () => {
  it('any replica reads a session another created, until it is deleted', async () => {
    const store = new MemoryStore();
    const here = new McpSessions(store);
    const there = new McpSessions(store);
    const s = await here.create({ protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } });
    expect(s.id).toMatch(/^mcp_[A-Za-z0-9_-]{22}$/);
    expect(await there.get(s.id)).toEqual(s);
    await there.setLogLevel(s, 'warning');
    expect((await here.get(s.id))?.logLevel).toBe('warning');
    await here.delete(s.id);
    expect(await there.get(s.id)).toBeNull();
    await store.close();
  });

  it('treats a damaged record as no session (property)', async () => {
    const store = new MemoryStore();
    const sessions = new McpSessions(store);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ protocolVersion: v, capabilities: v }))), async (raw) => {
        await store.putRecord(SESSION_NAMESPACE, 'damaged', raw, 60_000);
        const got = await sessions.get('damaged');
        if (got !== null) expect(typeof got.protocolVersion).toBe('string');
      }),
      { numRuns: 100 },
    );
    await store.close();
  });
});
