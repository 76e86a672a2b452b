/**
 * The MCP binding over real HTTP with the SDK's own client, for a 2026-07-28 client and a
 * 2025-11-25 client: tools, ask, a promise awaited on the other replica, progress while an answer
 * streams, errors, elicitation, and 2025 sessions spread over two replicas.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedCalls } from '../support/scripted-agent.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { anonymousPrincipal } from '../../src/core/principal.ts';
import { SESSION_NAMESPACE } from '../../src/bindings/mcp-http/sessions.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { ERAS, connectClient, roundRobin, startReplicas } from './support.ts';

const CONFIG = { defaults: { promiseAfterMs: 150 }, agents: [{ name: 'recipes', kind: 'scripted', description: 'Recipes for every season' }] };

let a: TestGateway;
let b: TestGateway;
beforeAll(async () => {
  [a, b] = await startReplicas(CONFIG);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

type Structured = Record<string, any>;
const structured = (r: Awaited<ReturnType<Client['callTool']>>) => r.structuredContent as Structured;
/** The `Mcp-Session-Id` a 2025 client was given at initialize. */
const sessionIdOf = (client: Client) => (client.transport as { sessionId?: string }).sessionId!;

describe.each(ERAS)('a %s MCP client', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectClient(`${a.url}/mcp`, era);
  });
  afterAll(() => client?.close());

  it('negotiates its own revision', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    expect(client.getProtocolEra()).toBe(era === '2026-07-28' ? 'modern' : 'legacy');
  });

  it('lists ask and await as NLWeb Appendix A defines them, and the agent tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['ask', 'await', 'echo']);
    const ask = tools[0]!;
    expect(ask.description).toContain('Recipes for every season');
    expect(ask.inputSchema).toMatchObject({
      type: 'object',
      required: ['query'],
      properties: {
        query: { type: 'object', required: ['text'], properties: { text: { type: 'string' }, site: { type: 'string' }, itemType: { type: 'string' } } },
        context: { type: 'object', description: 'Semantic context including conversation history' },
        prefer: { type: 'object', description: 'Response preferences (streaming, formatting, mode)' },
        meta: { type: 'object', description: 'Protocol metadata, version, and session context' },
      },
    });
    expect(tools[1]).toMatchObject({
      description: 'Check status or cancel a long-running promise.',
      inputSchema: { type: 'object', required: ['promise_token', 'action'], properties: { promise_token: { type: 'string' }, action: { enum: ['checkin', 'cancel'] }, meta: { type: 'object' } } },
    });
  });

  it('answers ask with the NLWeb response as structuredContent and a readable text', async () => {
    const r = await client.callTool({ name: 'ask', arguments: { query: { text: 'count:2 pumpkin' }, meta: { version: '0.55' } } });
    expect(r.isError).toBeFalsy();
    const resp = structured(r);
    expect(resp._meta).toMatchObject({ response_type: 'answer', version: '0.55' });
    expect(resp.results.map((i: Structured) => i.name)).toEqual(['item 0 for count:2 pumpkin', 'item 1 for count:2 pumpkin']);
    expect(r.content).toEqual([{ type: 'text', text: 'Found 2 results:\n1. item 0 for count:2 pumpkin\n2. item 1 for count:2 pumpkin' }]);
    expect(r._meta).toMatchObject({ response_type: 'answer', version: '0.55', session_context: { conversation_id: expect.any(String) } });
  });

  it('reports a failure as isError with the NLWeb failure, and bad arguments the same way', async () => {
    const failed = await client.callTool({ name: 'ask', arguments: { query: { text: 'fail please' } } });
    expect(failed.isError).toBe(true);
    expect(structured(failed)).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'NO_RESULTS', message: 'nothing matched' } });
    const invalid = await client.callTool({ name: 'ask', arguments: { query: { text: '' } } });
    expect(invalid.isError).toBe(true);
    expect(structured(invalid).error.code).toBe('INVALID_QUERY');
  });

  it('turns a slow ask into a promise that await resolves on the other replica', async () => {
    const first = await client.callTool({ name: 'ask', arguments: { query: { text: 'slow:400 count:1 stew' } } });
    const promise = structured(first);
    expect(promise._meta.response_type).toBe('promise');
    expect((first.content as Array<{ text: string }>)[0]!.text).toContain(promise.promise.token);
    const other = await connectClient(`${b.url}/mcp`, era);
    try {
      let answer: Structured | undefined;
      for (let i = 0; i < 40 && answer?._meta.response_type !== 'answer'; i++) {
        answer = structured(await other.callTool({ name: 'await', arguments: { promise_token: promise.promise.token, action: 'checkin' } }));
        if (answer._meta.response_type === 'promise') await new Promise((r) => setTimeout(r, 50));
      }
      expect(answer?._meta.response_type).toBe('answer');
      expect(answer?.results[0].name).toBe('item 0 for slow:400 count:1 stew');
    } finally {
      await other.close();
    }
  });

  it('sends progress notifications while the answer streams, when the client sent a progress token', async () => {
    const seen: Array<{ progress: number; message?: string }> = [];
    const r = await client.callTool({ name: 'ask', arguments: { query: { text: 'slow:200 progress count:2' } } }, { onprogress: (p) => seen.push(p) });
    expect(structured(r).results).toHaveLength(2);
    expect(seen.length).toBeGreaterThanOrEqual(5); // 4 progress steps + 2 results (the last may race the result)
    expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((x, y) => x - y));
    expect(seen[0]!.message).toBe('step 1');
  });

  it('passes structured tool calls through, and rejects an unknown tool as a protocol error', async () => {
    const r = await client.callTool({ name: 'echo', arguments: { say: 'hi' } });
    expect(r.structuredContent).toEqual({ tool: 'echo', args: { say: 'hi' } });
    expect(r.content).toEqual([{ type: 'text', text: 'echo {"say":"hi"}' }]);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('turns an agent elicitation into an MCP elicitation and asks again with the answers', async () => {
    const asked: Array<Record<string, unknown>> = [];
    const eliciting = await connectClient(`${a.url}/mcp`, era, { onElicit: (p) => (asked.push(p), { action: 'accept', content: { sauce: 'cream' } }) });
    try {
      const before = scriptedCalls.length;
      await eliciting.callTool({ name: 'ask', arguments: { query: { text: 'elicit pasta' } } });
      expect(asked[0]).toMatchObject({ message: 'Which sauce?', requestedSchema: { type: 'object', properties: { sauce: { type: 'string', enum: ['tomato', 'cream'] } } } });
      const followUp = scriptedCalls.slice(before).map((c) => c.request).find((r) => r.query.text !== 'elicit pasta');
      expect(followUp?.query.text).toBe('elicit pasta (Sauce? cream)');
      expect(followUp?.context).toMatchObject({ answers: { sauce: 'cream' }, prev: ['elicit pasta'] });
    } finally {
      await eliciting.close();
    }
  });

  it('returns the questions as the tool result when the client cannot elicit', async () => {
    const r = await client.callTool({ name: 'ask', arguments: { query: { text: 'elicit soup' } } });
    expect(structured(r)).toMatchObject({ _meta: { response_type: 'elicitation' }, elicitation: { questions: [{ id: 'sauce', type: 'single_select' }] } });
    expect((r.content as Array<{ text: string }>)[0]!.text).toBe('Which sauce?\n- Sauce? (tomato, cream)');
  });
});

describe('2025 sessions behind two replicas', () => {
  it('serves one session from either replica and keeps its conversation', async () => {
    const client = await connectClient(`${a.url}/mcp`, '2025-11-25', { fetch: roundRobin([a.url, b.url]) });
    try {
      expect((await client.listTools()).tools).toHaveLength(3);
      await client.callTool({ name: 'ask', arguments: { query: { text: 'first question' } } });
      const r = await client.callTool({ name: 'ask', arguments: { query: { text: 'second question' } } });
      // The scripted agent reports the conversation's earlier queries: the session kept it across replicas.
      expect(structured(r)._meta.agent_saw_prev).toEqual(['first question']);
    } finally {
      await client.close();
    }
  });

  it('binds a session to its conversation once, in its record: later calls read the binding and write none (regression: an alias write per call)', async () => {
    const store = new MemoryStore();
    const writes: Array<[string, string]> = [];
    const aliasReads: string[] = [];
    const put = store.putRecord.bind(store);
    const get = store.getRecord.bind(store);
    const replace = store.replaceRecord.bind(store);
    store.putRecord = (namespace, id, value, ttlMs) => (writes.push([namespace, value]), put(namespace, id, value, ttlMs));
    store.replaceRecord = (namespace, id, expected, value, ttlMs) => (writes.push([namespace, value]), replace(namespace, id, expected, value, ttlMs));
    store.getRecord = (namespace, id, ttlMs) => (namespace.startsWith('alias:') && aliasReads.push(id), get(namespace, id, ttlMs));
    const gw = await startGateway(CONFIG, { store });
    const client = await connectClient(`${gw.url}/mcp`, '2025-11-25');
    try {
      const afterInit = writes.length;
      for (const text of ['one', 'two', 'three']) await client.callTool({ name: 'ask', arguments: { query: { text } } });
      const last = await client.callTool({ name: 'ask', arguments: { query: { text: 'four' } } });
      const conversation = structured(last)._meta.session_context.conversation_id;
      expect(structured(last)._meta.agent_saw_prev).toEqual(['one', 'two', 'three']);
      // Issue 25: the session record names the conversation, so no alias is read or written beside it.
      const bindings = writes.slice(afterInit).filter(([namespace]) => namespace === SESSION_NAMESPACE || namespace.startsWith('alias:'));
      expect(bindings.map(([namespace, value]) => [namespace, JSON.parse(value).conversationId])).toEqual([[SESSION_NAMESPACE, conversation]]);
      expect(aliasReads).toEqual([]);
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it('a session whose record predates conversationId keeps its conversation through its alias (rolling upgrade)', async () => {
    const store = new MemoryStore();
    const gw = await startGateway(CONFIG, { store });
    const client = await connectClient(`${gw.url}/mcp`, '2025-11-25');
    try {
      const first = structured(await client.callTool({ name: 'ask', arguments: { query: { text: 'before the upgrade' } } }));
      const sessionId = sessionIdOf(client);
      // What a replica of the release before wrote: the record without the field, the binding in an alias.
      const { conversationId: _bound, ...older } = JSON.parse((await store.getRecord(SESSION_NAMESPACE, sessionId))!);
      await store.putRecord(SESSION_NAMESPACE, sessionId, JSON.stringify(older), 60_000);
      await gw.gateway.bindConversation('mcp', sessionId, first._meta.session_context.conversation_id, anonymousPrincipal('127.0.0.1'));
      const next = structured(await client.callTool({ name: 'ask', arguments: { query: { text: 'after it' } } }));
      expect(next._meta.agent_saw_prev).toEqual(['before the upgrade']);
      expect(next._meta.session_context.conversation_id).toBe(first._meta.session_context.conversation_id);
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it('a session deleted while its first answer is on the way stays deleted (regression: the binding rewrote the record and brought it back)', async () => {
    const store = new MemoryStore();
    const gw = await startGateway({ ...CONFIG, defaults: { promiseAfterMs: 60_000 } }, { store });
    const client = await connectClient(`${gw.url}/mcp`, '2025-11-25');
    try {
      const sessionId = sessionIdOf(client);
      const call = client.callTool({ name: 'ask', arguments: { query: { text: 'slow:400 deleted meanwhile' } } }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
      const deleted = await fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } });
      expect(deleted.status).toBe(200);
      // The exchange was closed with the session: the call may never answer, but the agent's does.
      await Promise.race([call, new Promise((r) => setTimeout(r, 1000))]);
      expect(await store.getRecord(SESSION_NAMESPACE, sessionId)).toBeNull();
      const after = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(after.status).toBe(404);
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it('continues a 2026 conversation through meta.session_context', async () => {
    const client = await connectClient(`${b.url}/mcp`, '2026-07-28');
    try {
      const first = structured(await client.callTool({ name: 'ask', arguments: { query: { text: 'modern first' } } }));
      const second = structured(
        await client.callTool({ name: 'ask', arguments: { query: { text: 'modern second' }, meta: { session_context: first._meta.session_context } } }),
      );
      expect(second._meta.agent_saw_prev).toEqual(['modern first']);
    } finally {
      await client.close();
    }
  });
});
