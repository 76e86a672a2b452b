import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { scriptedAdapter, scriptedCalls } from '../support/scripted-agent.ts';
import { checkReply, jsonOf, StrictNlipClient, type WireMessage } from './strict-client.ts';
import { acceptedVectors, rejectedVectors } from './vectors.ts';

/** The NLIP binding over real HTTP, in front of the scripted test agent (interop vectors, control, auth, promises). */

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway(
    {
      defaults: { promiseAfterMs: 150 },
      auth: { apiKeys: [{ principal: 'peer', key: 's3cret-0123456789' }, { principal: 'header', key: 'hdr-key-0123456789' }] },
      agents: [
        { name: 'scripted', kind: 'scripted' },
        { name: 'locked', kind: 'scripted', requireAuth: true, forwardCredentials: true },
        { name: 'second', kind: 'scripted' },
      ],
    },
    { adapters: [...builtinAdapters, scriptedAdapter] },
  );
});
afterAll(() => gw.close());

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, json: await res.json(), headers: res.headers };
}
const text = (m: WireMessage) => String(m.content);
const lastCall = () => scriptedCalls.at(-1)!;

describe('interop vectors get the documented reply', () => {
  for (const v of acceptedVectors) {
    it(`accepts ${v.name}`, async () => {
      const before = scriptedCalls.length;
      const { status, json } = await post('/nlip/', JSON.stringify(v.body));
      expect(status).toBe(200);
      const reply = checkReply(json);
      if (v.control) {
        expect(reply.messagetype).toBe('control');
        expect(scriptedCalls.length).toBe(before);
      } else {
        expect(reply.messagetype).toBeUndefined();
        expect(lastCall().request.query.text).toBe(v.text);
        expect(text(reply)).toMatch(/^Found 2 results/);
      }
      // 6.3: a peer that used the older `control` key gets it back.
      if (v.legacyControl) expect(reply.control).toBe(v.control);
      else expect(reply).not.toHaveProperty('control');
    });
  }
  for (const v of rejectedVectors) {
    it(`rejects ${v.name} with 400 and a body saying what is wrong`, async () => {
      const { status, json } = await post('/nlip/', v.raw);
      expect(status).toBe(400);
      expect(checkReply(json).content).toContain(v.says);
    });
  }
});

describe('NLIP binding behaviour', () => {
  it('serves /nlip and /nlip/ directly, and per agent under /agents/{name}/nlip', async () => {
    const msg = JSON.stringify({ format: 'text', subformat: 'english', content: 'hello there' });
    for (const path of ['/nlip', '/nlip/', '/agents/scripted/nlip', '/agents/scripted/nlip/']) {
      const { status } = await post(path, msg);
      expect(status, path).toBe(200);
    }
    expect(lastCall().request.query.text).toBe('hello there');
  });

  it('routes a message whose label names an agent to that agent; other labels are free tags', async () => {
    await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'hello second', label: 'second' }));
    expect(lastCall()).toMatchObject({ agent: 'second', request: { query: { text: 'hello second' } } });
    await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'hello tag', label: 'my-tag' }));
    expect(lastCall()).toMatchObject({ agent: 'scripted', request: { query: { text: 'hello tag' } } });
  });

  it('answers other methods with 405 and an NLIP body', async () => {
    const res = await fetch(`${gw.url}/nlip/`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    checkReply(await res.json());
  });

  it('renders an answer: text first, one labelled structured/json per item, then the minted token', async () => {
    const client = new StrictNlipClient(`${gw.url}/nlip/`);
    const reply = await client.ask('count:3 soups');
    expect(text(reply)).toMatch(/^Found 3 results:\n1\. item 0 for count:3 soups/);
    const items = jsonOf(reply);
    expect(items.map((i) => i.label)).toEqual(['result-1', 'result-2', 'result-3']);
    expect(items[0]!.value).toMatchObject({ '@id': 'urn:item:0', score: 1, site: 'scripted' });
    expect(reply.submessages!.at(-1)).toMatchObject({ format: 'token', subformat: 'conversation' });
    expect(String(reply.submessages!.at(-1)!.content)).toMatch(/^nlipconv_[A-Za-z0-9_.:-]{16,128}$/);
  });

  it('two turns: the second reaches the agent with the first in context.prev and the upstream session', async () => {
    const client = new StrictNlipClient(`${gw.url}/nlip/`);
    await client.ask('tomato soup');
    const token = client.conversationToken;
    await client.ask('without cream');
    const call = lastCall();
    expect(call.request.context?.prev).toEqual(['tomato soup']);
    expect(call.conversation?.upstreamSession).toEqual({ visits: 1 });
    // The token is echoed as is, not replaced.
    expect(client.conversationToken).toBe(token);
  });

  it('echoes every conversation token exactly (subformat, content, label), and maps a peer token too', async () => {
    const peer = { format: 'token', subformat: 'conversation_peerA', content: 'peer-token-0123456789abcdef', label: 'mine' };
    const r1 = checkReply((await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'first question', submessages: [peer] }))).json);
    expect(r1.submessages).toContainEqual(peer);
    expect(r1.submessages!.filter((s) => s.subformat === 'conversation')).toHaveLength(1);
    // Only the peer's own token comes back: the conversation continues anyway.
    const r2 = checkReply((await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'second question', submessages: [peer] }))).json);
    expect(lastCall().request.context?.prev).toEqual(['first question']);
    expect(r2.submessages).toContainEqual(peer);
    expect(r2.submessages!.some((s) => s.subformat === 'conversation')).toBe(false);
  });

  it('echoes every one of many tokens (only a few are looked up in the store)', async () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ format: 'token', subformat: `conversation_p${i}`, content: `peer-token-${i}-0123456789abcdef` }));
    const reply = checkReply((await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'many tokens', submessages: many }))).json);
    for (const t of many) expect(reply.submessages).toContainEqual(t);
  });

  it('does not key a conversation on a short, guessable peer token', async () => {
    const weak = { format: 'token', subformat: 'conversation', content: '1' };
    await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'alpha', submessages: [weak] }));
    await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'beta', submessages: [weak] }));
    expect(lastCall().request.context?.prev ?? []).toEqual([]);
  });

  it('maps location and structured/json parts to filters and context', async () => {
    await post('/nlip/', JSON.stringify({
      format: 'text', subformat: 'english', content: 'dinner nearby',
      submessages: [
        { format: 'location', subformat: 'GPS', content: '47.6,-122.3' },
        { format: 'structured', subformat: 'json', content: { itemType: 'Recipe', text: 'must not replace the question' }, label: 'filters' },
        { format: 'structured', subformat: 'json', content: '{"memory":"vegetarian"}', label: 'context' },
      ],
    }));
    expect(lastCall().request.query).toEqual({ text: 'dinner nearby', itemType: 'Recipe', location: { '@type': 'GeoCoordinates', latitude: 47.6, longitude: -122.3 } });
    expect(lastCall().request.context).toMatchObject({ memory: 'vegetarian' });
  });

  it('regression: a structured/json {"query": ...} message is asked, not refused as having no question', async () => {
    const reply = checkReply((await post('/nlip/', JSON.stringify({ format: 'structured', subformat: 'json', content: { query: { text: 'pasta count:2', site: 'scripted' } } }))).json);
    expect(text(reply)).not.toContain('The message has no question');
    expect(lastCall().request.query).toEqual({ text: 'pasta count:2', site: 'scripted' });
    const plain = checkReply((await post('/nlip/', JSON.stringify({ format: 'structured', subformat: 'json', content: '{"query":"soup"}' }))).json);
    expect(text(plain)).not.toContain('The message has no question');
    expect(lastCall().request.query.text).toBe('soup');
  });

  it('filters that are not valid get a clear reply, not a crash', async () => {
    const reply = checkReply((await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'soup', submessages: [{ format: 'structured', subformat: 'json', content: { site: null, num_results: 'many' } }] }))).json);
    expect(text(reply)).toContain("The message's structured parts are not valid filters: query.site");
    expect(reply.submessages).toContainEqual({ format: 'error', subformat: 'code', content: 'INVALID_QUERY' });
  });

  it('names binary parts an agent cannot take in a clear reply', async () => {
    const withText = checkReply((await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'what is this', submessages: [{ format: 'binary', subformat: 'image/png', content: 'AAEC', label: 'photo' }, { format: 'binary', subformat: 'jpeg', content: '%%%' }] }))).json);
    expect(text(withText)).toContain('Agent "scripted" does not take binary content, so this part was not passed on: photo (image/png).');
    expect(text(withText)).toContain('A binary part (jpeg) is not valid base64 and was not used.');
    const only = checkReply((await post('/nlip/', JSON.stringify({ format: 'binary', subformat: 'image/png', content: 'AAEC' }))).json);
    expect(text(only)).toContain('The message has no question');
    expect(text(only)).toContain('does not take binary content');
    expect(only.submessages).toContainEqual({ format: 'error', subformat: 'code', content: 'INVALID_QUERY' });
  });

  it('an application failure is HTTP 200 with text and an error code', async () => {
    const { status, json } = await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'fail please' }));
    expect(status).toBe(200);
    const reply = checkReply(json);
    expect(text(reply)).toBe('The request failed (NO_RESULTS): nothing matched');
    expect(reply.submessages).toContainEqual({ format: 'error', subformat: 'code', content: 'NO_RESULTS' });
    const unknown = checkReply((await post('/agents/nobody/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'x' }))).json);
    expect(text(unknown)).toContain('No agent is named "nobody"');
  });

  it('an adapter bug is a clean NLIP failure without internals', async () => {
    const reply = checkReply((await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'throw now' }))).json);
    expect(text(reply)).toContain('INTERNAL_ERROR');
    expect(JSON.stringify(reply)).not.toContain('secret-internal-detail');
  });

  it('an elicitation is its text plus the questions as structured/json', async () => {
    const reply = checkReply((await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'elicit me' }))).json);
    expect(text(reply)).toContain('Which sauce?');
    expect(jsonOf(reply)).toContainEqual({ label: 'elicitation', value: expect.objectContaining({ questions: [expect.objectContaining({ id: 'sauce' })] }) });
  });

  it('a slow call answers with a promise token; sending it back checks in and gets the answer', async () => {
    const client = new StrictNlipClient(`${gw.url}/nlip/`);
    const first = await client.ask('slow:600 stew');
    expect(text(first)).toContain('Check back with the promise token');
    const promise = first.submessages!.find((s) => s.format === 'token' && s.subformat === 'promise')!;
    expect(String(promise.content).length).toBeGreaterThan(20);
    let reply = first;
    for (let i = 0; i < 20 && reply.submessages!.some((s) => s.subformat === 'promise'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      reply = await client.ask('any news?', [{ format: 'token', subformat: 'promise', content: promise.content }]);
    }
    expect(text(reply)).toMatch(/^Found 2 results/);
    expect(jsonOf(reply)[0]!.value).toMatchObject({ name: 'item 0 for slow:600 stew' });
  });

  it('a control message cancels a pending promise', async () => {
    const first = checkReply((await post('/nlip/', JSON.stringify({ format: 'text', subformat: 'english', content: 'slow:5000 roast' }))).json);
    const promise = first.submessages!.find((s) => s.subformat === 'promise')!;
    const reply = checkReply((await post('/nlip/', JSON.stringify({ messagetype: 'control', format: 'text', subformat: 'english', content: 'cancel', submessages: [promise] }))).json);
    expect(reply).toMatchObject({ messagetype: 'control', content: 'The pending answer was cancelled.' });
  });
});

describe('NLIP authentication (6.5)', () => {
  const ask = (content: string, extra: unknown[] = []) => JSON.stringify({ format: 'text', subformat: 'english', content, submessages: extra });

  it('asks for authentication with a control message when the agent requires it and none came', async () => {
    const before = scriptedCalls.length;
    const { status, json } = await post('/agents/locked/nlip/', ask('private question'));
    expect(status).toBe(200);
    const reply = checkReply(json);
    expect(reply.messagetype).toBe('control');
    expect(text(reply)).toContain('requires authentication');
    expect(text(reply)).toContain('subformat "authentication"');
    expect(scriptedCalls.length).toBe(before);
  });

  it.each([
    ['an authentication token', 'authentication', 'Bearer s3cret-0123456789', 'Bearer s3cret-0123456789'],
    ['an authorization token (as the SDKs send it)', 'authorization', 'Bearer s3cret-0123456789', 'Bearer s3cret-0123456789'],
    ['a bare token', 'authentication', 's3cret-0123456789', 'Bearer s3cret-0123456789'],
  ])('accepts %s and passes it as credentials', async (_name, subformat, content, expected) => {
    const reply = checkReply((await post('/agents/locked/nlip/', ask('private question', [{ format: 'token', subformat, content }]))).json);
    expect(text(reply)).toMatch(/^Found 2 results/);
    expect(lastCall().credentials).toEqual({ authorization: expected });
    // A credential is never echoed back.
    expect(JSON.stringify(reply)).not.toContain('s3cret');
  });

  it('accepts the HTTP Authorization header', async () => {
    const reply = checkReply((await post('/agents/locked/nlip/', ask('private question'), { authorization: 'Bearer hdr-key-0123456789' })).json);
    expect(text(reply)).toMatch(/^Found 2 results/);
    expect(lastCall().credentials).toEqual({ authorization: 'Bearer hdr-key-0123456789' });
  });

  it('the core strips credentials for agents that do not forward them', async () => {
    await post('/agents/scripted/nlip/', ask('open question', [{ format: 'token', subformat: 'authentication', content: 'Bearer s3cret-0123456789' }]));
    expect(lastCall().credentials).toBeUndefined();
  });
});
