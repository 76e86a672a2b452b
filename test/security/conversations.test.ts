/**
 * Issue 11, "conversations are bearer handles with no owner": every conversation handle — NLWeb
 * `conversation_id` (client-chosen or minted), NLIP conversation tokens, webtool `sessionId`, the
 * legacy binding's `conversation_id`, an MCP ask's conversation — names a conversation inside its
 * principal's namespace. Alice (127.0.0.1) and bob (127.0.0.2) sending the same handle never share
 * `prev` nor the upstream's `session_context`; client-chosen ids too short to be unguessable are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { parseSseText } from '../support/http.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';
import { alice, bob, McpSession, nlipMessage, partsOf, postJson, type Fetch } from './owner-support.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ agents: [{ name: 'bot', kind: 'scripted' }] });
});
afterAll(() => gw?.close());

/** What the agent saw on its last call: the previous queries and its own session_context (visits). */
const lastSeen = () => {
  const call = scriptedCalls.at(-1)!;
  return { prev: call.request.context?.prev ?? [], visits: call.conversation?.upstreamSession?.visits ?? 0, text: call.request.query.text };
};
const ask = (who: Fetch, text: string, conversationId?: string) =>
  postJson(who, `${gw.url}/agents/bot/ask`, { query: { text }, ...(conversationId ? { meta: { session_context: { conversation_id: conversationId } } } : {}) });

describe('NLWeb conversation ids', () => {
  it('conversation id "1" is refused with INVALID_QUERY (400) saying the minimum, before the agent is called', async () => {
    const before = scriptedCalls.length;
    const r = await ask(alice, 'count:1 soup', '1');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'INVALID_QUERY' } });
    expect(r.body.error.message).toContain('at least 16 characters');
    expect(scriptedCalls.length).toBe(before);
  });

  it('a streaming ask with a short id is refused the same way, and so is a legacy GET /ask', async () => {
    const streamed = await postJson(alice, `${gw.url}/agents/bot/ask`, { query: { text: 'count:1' }, prefer: { streaming: true }, meta: { session_context: { conversation_id: 'abc' } } });
    expect(streamed.status).toBe(400);
    expect(streamed.body.error.message).toContain('at least 16 characters');
    const legacy = await alice(`${gw.url}/agents/bot/ask?query=soup&streaming=false&conversation_id=1`);
    expect(legacy.status).toBe(400);
    expect(JSON.stringify(await legacy.json())).toContain('at least 16 characters');
  });

  it('two clients sending the same long id are two conversations: no shared prev, no shared upstream session_context', async () => {
    const id = 'client-chosen-conversation-42';
    await ask(alice, 'count:1 alice secret one', id);
    await ask(alice, 'count:1 alice two', id);
    expect(lastSeen()).toMatchObject({ prev: ['count:1 alice secret one'], visits: 1 });
    const theirs = await ask(bob, 'count:1 bob one', id);
    expect(theirs.body._meta.session_context.conversation_id).toBe(id);
    expect(lastSeen()).toMatchObject({ prev: [], visits: 0 });
    await ask(alice, 'count:1 alice three', id);
    expect(lastSeen()).toMatchObject({ prev: ['count:1 alice secret one', 'count:1 alice two'], visits: 2 });
  });

  it('a gateway-minted id continued by another caller is an empty conversation for that caller', async () => {
    const minted = (await ask(alice, 'count:1 alice minted')).body._meta.session_context.conversation_id as string;
    expect(minted).toMatch(/^conv_/);
    await ask(bob, 'count:1 bob continues', minted);
    expect(lastSeen()).toMatchObject({ prev: [], visits: 0 });
    await ask(alice, 'count:1 alice continues', minted);
    expect(lastSeen().prev).toEqual(['count:1 alice minted']);
  });

  it('the legacy binding: alice\'s conversation_id sent by bob carries none of her queries', async () => {
    const frames = async (who: Fetch, query: string) => parseSseText(await (await who(`${gw.url}/agents/bot/ask?${query}`)).text());
    const first = await frames(alice, 'query=count:1%20legacy%20alice');
    const id = (first[0]!.data as { conversation_id: string }).conversation_id;
    await frames(bob, `query=count:1%20legacy%20bob&conversation_id=${id}`);
    expect(lastSeen().prev).toEqual([]);
    await frames(alice, `query=count:1%20legacy%20again&conversation_id=${id}`);
    expect(lastSeen().prev).toEqual(['count:1 legacy alice']);
  });
});

describe('NLIP conversation tokens', () => {
  const send = (who: Fetch, text: string, tokens: string[]) =>
    postJson(who, `${gw.url}/agents/bot/nlip/`, nlipMessage(text, tokens.map((content) => ({ format: 'token', subformat: 'conversation', content }))));

  it('a peer token, and the token the gateway minted, continue only the conversation of the caller that bound them', async () => {
    const peerToken = 'peer-chosen-token-0123456789';
    const first = await send(alice, 'count:1 nlip alice one', [peerToken]);
    const minted = partsOf(first.body, 'token', 'conversation').map((p) => p.content as string).find((t) => t !== peerToken)!;
    expect(minted).toMatch(/^nlipconv_/);
    await send(bob, 'count:1 nlip bob peer', [peerToken]);
    expect(lastSeen().prev).toEqual([]);
    await send(bob, 'count:1 nlip bob minted', [minted]);
    expect(lastSeen().prev).toEqual([]);
    await send(alice, 'count:1 nlip alice two', [minted]);
    expect(lastSeen().prev).toEqual(['count:1 nlip alice one']);
  });
});

describe('webtool sessionId', () => {
  it('webtool sessionId: another principal\'s equal sessionId is another conversation', async () => {
    const call = (who: Fetch, text: string) =>
      postJson(who, `${gw.url}/webtools/bot`, { sessionId: 'webtool-session-id-0001', action: 'ask', request: { query: { text } } });
    const mine = (await call(alice, 'count:1 webtool alice')).body.data._meta.session_context.conversation_id;
    // The id is derived from the sessionId (equal for both, as equal client-chosen NLWeb ids are):
    // each principal's is a conversation of its own all the same.
    const theirs = (await call(bob, 'count:1 webtool bob')).body.data._meta.session_context.conversation_id;
    expect(theirs).toBe(mine);
    expect(lastSeen().prev).toEqual([]);
    expect((await call(alice, 'count:1 webtool alice two')).body.data._meta.session_context.conversation_id).toBe(mine);
    expect(lastSeen().prev).toEqual(['count:1 webtool alice']);
  });
});

describe('MCP conversations', () => {
  it('the conversation of alice\'s MCP session, named by bob in his own ask, carries none of her queries', async () => {
    const mine = await McpSession.open(`${gw.url}/mcp`, alice);
    const first = await mine.call('ask', { query: { text: 'count:1 mcp alice' } });
    const id = first.message?.result?._meta.session_context.conversation_id as string;
    const theirs = await McpSession.open(`${gw.url}/mcp`, bob);
    await theirs.call('ask', { query: { text: 'count:1 mcp bob' }, meta: { session_context: { conversation_id: id } } });
    expect(lastSeen().prev).toEqual([]);
    await mine.call('ask', { query: { text: 'count:1 mcp alice two' } });
    expect(lastSeen().prev).toEqual(['count:1 mcp alice']);
  });
});
