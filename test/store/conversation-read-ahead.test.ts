/**
 * Issue 25: a call that names its conversation through a handle of its protocol reads the handle's
 * record and the conversation it names in ONE Redis command (Store.getRecordAndConversation), where
 * it took two: a 2025 MCP session's record, a webtool `sessionId` (an earlier release's alias, else
 * its derived conversation), an NLIP peer's own conversation token. A continuing call is then two
 * commands in all (that read and the turn). Real clients talk to a gateway on a spawned
 * redis-server; the commands are counted on the store's own connection.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/base/logger.ts';
import { SESSION_KIND, sessionHandle } from '../../src/bindings/webtool-http/execute.ts';
import { anonymousPrincipal } from '../../src/core/principal.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { connectClient } from '../mcp/support.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { describeRedis, startRedis, type RedisServer } from '../support/redis.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';

const CONFIG = {
  defaults: { promiseAfterMs: 5000 },
  limits: { gatewayRateLimit: { requests: 1_000_000, windowMs: 60_000 } },
  agents: [{ name: 'recipes', kind: 'scripted', description: 'Recipes' }],
};

type Structured = Record<string, any>;
const structured = (r: Awaited<ReturnType<Client['callTool']>>) => r.structuredContent as Structured;

describeRedis('a conversation read with the handle that names it, on the Redis store', () => {
  let redis: RedisServer;
  let store: RedisStore;
  let gw: TestGateway;
  let client: Client;
  const sent: string[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    store = new RedisStore({ url: redis.url, prefix: 'mcp-read:', log: silentLogger });
    const connection = store.client as Redis;
    const send = connection.sendCommand.bind(connection);
    connection.sendCommand = ((command: { name: string }, stream?: unknown) => (sent.push(command.name), send(command as never, stream as never))) as typeof connection.sendCommand;
    gw = await startGateway(CONFIG, { store });
    client = await connectClient(`${gw.url}/mcp`, '2025-11-25');
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await store?.close();
    await redis?.stop();
  });

  /** One `ask` and the store commands it sent. */
  const ask = async (text: string, meta?: Record<string, unknown>): Promise<{ r: Structured; commands: string[] }> => {
    sent.length = 0;
    const r = structured(await client.callTool({ name: 'ask', arguments: { query: { text }, ...(meta ? { meta } : {}) } }));
    return { r, commands: [...sent] };
  };

  /** A POST's JSON answer and the store commands it sent. */
  const post = async (path: string, body: unknown): Promise<{ body: Structured; commands: string[] }> => {
    sent.length = 0;
    const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    return { body: (await res.json()) as Structured, commands: [...sent] };
  };
  const lastPrev = () => scriptedCalls.at(-1)!.request.context?.prev ?? [];

  it('regression "3 Redis round trips per MCP session call": a continuing call sends two commands, its read one, and the agent sees the conversation', async () => {
    await ask('one'); // binds the session to its new conversation; every script is loaded once
    await ask('two');
    const { r, commands } = await ask('three');
    expect(r._meta.agent_saw_prev).toEqual(['one', 'two']);
    expect(commands).toEqual(['evalsha', 'evalsha']);
  });

  it('a call that names another conversation continues that one, not the one read with the session, and the session follows it', async () => {
    const first = await ask('in the session');
    const session = first.r._meta.session_context.conversation_id as string;
    const other = `conv_${'x'.repeat(24)}${Date.now()}`;
    const named = await ask('elsewhere', { session_context: { conversation_id: other } });
    expect(named.r._meta.session_context.conversation_id).toBe(other);
    expect(named.r._meta.agent_saw_prev).toEqual([]);
    const next = await ask('after it');
    expect(next.r._meta.session_context.conversation_id).toBe(other);
    expect(next.r._meta.agent_saw_prev).toEqual(['elsewhere']);
    expect(session).not.toBe(other);
  });

  it('a webtool sessionId: its derived conversation is read with the alias an earlier release may have bound, one command', async () => {
    const call = (text: string, sessionId = 'read-ahead-session-01') => post('/webtools/recipes', { sessionId, action: 'ask', request: { query: { text } } });
    await call('first');
    const { commands } = await call('second');
    expect(lastPrev()).toEqual(['first']);
    expect(commands).toEqual(['evalsha', 'evalsha']);
    // An earlier release's alias names another conversation: that one continues, read with the alias.
    const nlweb = await post('/agents/recipes/ask', { query: { text: 'before the upgrade' } });
    const bound = nlweb.body._meta.session_context.conversation_id as string;
    await gw.gateway.bindConversation(SESSION_KIND, sessionHandle('recipes', 'read-ahead-bound-01'), bound, anonymousPrincipal('127.0.0.1'));
    const after = await call('after it', 'read-ahead-bound-01');
    expect(after.body.data._meta.session_context.conversation_id).toBe(bound);
    expect(lastPrev()).toEqual(['before the upgrade']);
    expect(after.commands).toEqual(['evalsha', 'evalsha']);
  });

  it('an NLIP peer\'s own conversation token: the mapped conversation is read with the mapping and the mapping is not written again', async () => {
    const token = (content: string) => ({ format: 'token', subformat: 'conversation', content });
    const message = (text: string, ...tokens: string[]) => post('/agents/recipes/nlip/', { format: 'text', subformat: 'english', content: text, submessages: tokens.map(token) });
    await message('first', 'peer-token-read-ahead-0001');
    const { commands } = await message('second', 'peer-token-read-ahead-0001');
    expect(lastPrev()).toEqual(['first']);
    expect(commands).toEqual(['evalsha', 'evalsha']);
    // A second token of the peer's, new in this message, is bound to the conversation too (a write).
    const both = await message('third', 'peer-token-read-ahead-0001', 'peer-token-read-ahead-0002');
    expect(both.commands).toEqual(['evalsha', 'evalsha', 'evalsha']);
    await message('fourth', 'peer-token-read-ahead-0002');
    expect(lastPrev()).toEqual(['first', 'second', 'third']);
  });
});
