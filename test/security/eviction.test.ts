/**
 * Issue 24, hole 3: anonymous traffic pushed authenticated users' state out of the store (the memory
 * store's caps were least-recently-used over everyone; the Redis store relied on `maxmemory`
 * eviction, which has the same shape). Reproduced as filed, with the caps lowered, against each
 * store: a flood of anonymous MCP `initialize` calls and first-turn asks must leave alice's MCP
 * session and her conversation's history in place.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';
import { a2aClient, asTask, send, userMessage } from '../a2a/support.ts';
import { ALICE_KEY, AUTH, MCP_HEADERS, MCP_INIT, postJson } from './support.ts';

const CAP = 30;
const asAlice = { authorization: `Bearer ${ALICE_KEY}` };
/** Records one owner holds of one kind: lower than the class's cap, so one caller can fill only part of it. */
const PER_OWNER = 5;
const caps = { maxConversations: CAP, maxRecords: CAP, maxRecordsPerOwner: PER_OWNER };
/** Two anonymous callers at two addresses (the gateway trusts loopback as its proxy here). */
const carol = { 'x-forwarded-for': '203.0.113.7' };
const mallory = { 'x-forwarded-for': '198.51.100.9' };

/** The cases, against a gateway over the store `store()` names. */
function evictionCases(store: () => Record<string, unknown>): void {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({
      auth: AUTH,
      store: store(),
      server: { trustedProxies: ['127.0.0.1', '::1'] },
      limits: { gatewayRateLimit: { requests: 100_000, windowMs: 60_000 } },
      agents: [{ name: 'open', kind: 'scripted' }],
    });
  });
  afterAll(() => gw?.close());

  describe('regression "anonymous traffic evicts authenticated users\' state" (issue 24, hole 3)', () => {
    it('an MCP session of alice survives more anonymous initialize calls than the store holds', async () => {
      const init = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...asAlice }, body: MCP_INIT });
      expect(init.status).toBe(200);
      const session = init.headers.get('mcp-session-id')!;
      for (let i = 0; i < CAP + 10; i++) {
        const anon = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: MCP_INIT });
        expect(anon.status).toBe(200);
        await anon.body?.cancel();
      }
      const list = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...asAlice, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
      });
      expect(list.status).toBe(200);
    });

    it("alice's conversation keeps its history through more anonymous first-turn asks than the store holds", async () => {
      const first = await postJson(`${gw.url}/agents/open/ask`, { query: { text: 'count:1 first question' } }, asAlice);
      const conversationId = ((await first.json()) as { _meta: { session_context: { conversation_id: string } } })._meta.session_context.conversation_id;
      for (let i = 0; i < CAP + 10; i++) {
        const anon = await postJson(`${gw.url}/agents/open/ask`, { query: { text: `count:1 flood ${i}` } });
        expect(anon.status).toBe(200);
      }
      const next = await postJson(`${gw.url}/agents/open/ask`, { query: { text: 'count:1 second question' }, meta: { session_context: { conversation_id: conversationId } } }, asAlice);
      expect(next.status).toBe(200);
      expect(scriptedCalls.at(-1)!.request.context?.prev).toEqual(['count:1 first question']);
    });
  });

  describe('regression "one anonymous caller\'s A2A tasks pushed every other anonymous caller\'s sessions out"', () => {
    it('past store.maxRecordsPerOwner a caller recycles its own oldest tasks: another caller\'s task and MCP session stay', async () => {
      const init = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...carol }, body: MCP_INIT });
      expect(init.status).toBe(200);
      const session = init.headers.get('mcp-session-id')!;
      const asCarol = await a2aClient(`${gw.url}/a2a/open/`, 'JSONRPC', carol);
      const carolsTask = asTask(await asCarol.sendMessage(send(userMessage('count:1 mine'))));
      const asMallory = await a2aClient(`${gw.url}/a2a/open/`, 'JSONRPC', mallory);
      const flood: string[] = [];
      for (let i = 0; i < CAP + 10; i++) flood.push(asTask(await asMallory.sendMessage(send(userMessage(`count:1 flood ${i}`)))).id);
      expect((await asCarol.getTask({ id: carolsTask.id, tenant: '' })).id).toBe(carolsTask.id);
      const list = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...carol, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
      });
      expect(list.status).toBe(200);
      // The flooder keeps its newest PER_OWNER tasks; its older ones are gone.
      for (const id of flood.slice(-PER_OWNER)) expect((await asMallory.getTask({ id, tenant: '' })).id).toBe(id);
      await expect(asMallory.getTask({ id: flood[0]!, tenant: '' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    });
  });
}

describe('memory store', () => evictionCases(() => ({ kind: 'memory', ...caps })));

describeRedis('Redis store', () => {
  let redis: RedisServer;
  const prefix = `eviction-${randomBytes(4).toString('hex')}:`;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());
  evictionCases(() => ({ kind: 'redis', url: redis.url, prefix, ...caps }));

  it('the config\'s caps reach the Redis store: the anonymous flood left at most store.maxConversations anonymous conversations', async () => {
    const admin = new Redis(redis.url);
    const [, keys] = await admin.scan('0', 'MATCH', `${prefix}conv:*`, 'COUNT', 10_000);
    admin.disconnect();
    // Anonymous callers' conversations carry the `{ca}` hash tag, verified principals' `{cv}` (docs/state.md).
    const anonymous = keys.filter((k) => k.startsWith(`${prefix}conv:{ca}:`));
    expect(anonymous.length).toBeGreaterThan(0);
    expect(anonymous.length).toBeLessThanOrEqual(CAP);
  });
});
