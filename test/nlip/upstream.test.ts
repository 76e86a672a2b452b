import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAdapters } from '../../adapters/index.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { parseSseText } from '../support/http.ts';
import { startNlipTestAgent, type NlipTestAgent } from './nlip-test-agent.ts';
import { checkReply, jsonOf, StrictNlipClient } from './strict-client.ts';

/**
 * NLIP agents behind the gateway: an NLWeb client asks the NLIP test agent through `/ask` (JSON and
 * SSE, promises included), and an NLIP peer reaches it through `/nlip` (binary and uploads included).
 */

let upstream: NlipTestAgent;
let gw: TestGateway;
beforeAll(async () => {
  upstream = await startNlipTestAgent();
  gw = await startGateway(
    {
      agents: [
        { name: 'nlipper', kind: 'nlip', url: upstream.url, headers: { Authorization: 'Bearer upstream-secret' }, label: 'user' },
      ],
    },
    { adapters: builtinAdapters },
  );
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

async function ask(body: unknown, accept = 'application/json'): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}
const last = () => upstream.received.at(-1)!;

describe('NLWeb client → gateway → NLIP agent', () => {
  it('streams the answer over SSE: summary, items, complete', async () => {
    const { status, text } = await ask({ query: { text: 'pasta' }, prefer: { streaming: true } }, 'text/event-stream');
    expect(status).toBe(200);
    const events = parseSseText(text);
    expect(events.map((e) => e.event)).toEqual(['start', 'result', 'result', 'result', 'complete']);
    expect(events[1]!.data).toMatchObject({ index: 0, item: { '@type': 'SearchSummary', text: 'You asked "pasta" (turn 1 of this session)' } });
    expect(events[2]!.data).toMatchObject({ item: { '@id': 'urn:nlip:1', score: 0.9, site: 'nlip-test' } });
    expect(last().body.label).toBe('user');
  });

  it('keeps the NLIP session across /ask turns of one conversation (cookie + upstream token)', async () => {
    const first = JSON.parse((await ask({ query: { text: 'first' } })).text);
    const conversation_id = first._meta.session_context.conversation_id as string;
    const second = JSON.parse((await ask({ query: { text: 'second' }, meta: { session_context: { conversation_id } } })).text);
    expect(second.results[0]).toMatchObject({ '@type': 'SearchSummary', text: 'You asked "second" (turn 2 of this session)' });
    expect(last().headers.cookie).toMatch(/sid=/);
    const tokens = (last().body.submessages as Array<{ subformat: string; content: string }>).filter((s) => s.subformat === 'conversation_nlipagent');
    expect(tokens).toHaveLength(1);
    expect(upstream.minted.has(tokens[0]!.content)).toBe(true);
  });

  it('an upstream promise token: 202 with a gateway promise, then /await gets the answer', async () => {
    const res = await ask({ query: { text: 'slow please' } });
    expect(res.status).toBe(202);
    const token = JSON.parse(res.text).promise.token as string;
    // The gateway's own token, not the upstream's (`p-` and 16 hex digits). Regression "flaky on a
    // random token": this asserted no `p-` anywhere, which a random base64url token holds ~0.5% of runs.
    expect(token).toMatch(/^prm_/);
    expect(token).not.toMatch(/p-[0-9a-f]{16}/);
    let answer: any;
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${gw.url}/await`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ promise_token: token, action: 'checkin' }) });
      answer = await r.json();
      if (answer._meta.response_type !== 'promise') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(answer._meta.response_type).toBe('answer');
    expect(answer.results[1]).toMatchObject({ name: 'the slow result' });
  });

  it('a streaming client just sees the answer of a slow upstream', async () => {
    const events = parseSseText((await ask({ query: { text: 'slow stream' }, prefer: { streaming: true } }, 'text/event-stream')).text);
    expect(events.filter((e) => e.event === 'result').map((e) => (e.data as any).item.name ?? (e.data as any).item.text)).toContain('the slow result');
    expect(events.at(-1)!.event).toBe('complete');
  });

  it('answers the upstream request for authentication (6.5) with the configured credential', async () => {
    const body = JSON.parse((await ask({ query: { text: 'secret recipe' } })).text);
    expect(body._meta.response_type).toBe('answer');
    expect(last().body.submessages).toContainEqual({ format: 'token', subformat: 'authentication', content: 'Bearer upstream-secret' });
  });

  it('an upstream failure is an NLWeb failure', async () => {
    const body = JSON.parse((await ask({ query: { text: 'fail it' } })).text);
    expect(body).toMatchObject({ _meta: { response_type: 'failure' }, error: { code: 'NO_RESULTS', message: 'nothing matched that' } });
  });
});

describe('NLIP peer → gateway → NLIP agent', () => {
  it('answers through /nlip over two turns; the upstream token stays inside the gateway', async () => {
    const client = new StrictNlipClient(`${gw.url}/nlip/`);
    const r1 = await client.ask('hello upstream');
    expect(r1.content).toContain('You asked "hello upstream" (turn 1');
    const r2 = await client.ask('again');
    expect(r2.content).toContain('You asked "again" (turn 2');
    // The upstream's own token stays inside the gateway; the peer sees only the gateway's.
    expect(JSON.stringify(r2)).not.toContain('conversation_nlipagent');
    expect(r2.submessages!.filter((s) => s.format === 'token')).toEqual([{ format: 'token', subformat: 'conversation', content: client.conversationToken }]);
  });

  it('passes binary parts through to an agent that takes them', async () => {
    const client = new StrictNlipClient(`${gw.url}/nlip/`);
    const reply = await client.ask('what is in this picture', [{ format: 'binary', subformat: 'image/png', content: 'iVBORw0KGgo=', label: 'pic' }]);
    expect(last().body.submessages).toContainEqual({ format: 'binary', subformat: 'image/png', content: 'iVBORw0KGgo=', label: 'pic' });
    expect(jsonOf(reply)[1]!.value).toMatchObject({ binaries: ['image/png'] });
  });

  it('a message with only binary content reaches an agent that takes it, with a stand-in question', async () => {
    await new StrictNlipClient(`${gw.url}/nlip/`).send({ format: 'binary', subformat: 'image/png', content: 'iVBORw0KGgo=' });
    expect(last().body).toMatchObject({ content: '(see the attached content)', submessages: [{ format: 'binary', subformat: 'image/png', content: 'iVBORw0KGgo=' }] });
  });

  it('6.4: a control message gets the upload location; an upload referenced later reaches the agent', async () => {
    const control = checkReply(
      await (await fetch(`${gw.url}/nlip/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messagetype: 'control', format: 'text', subformat: 'english', content: 'Where can I send a large upload?' }) })).json(),
    );
    expect(control.messagetype).toBe('control');
    const location = control.submessages!.find((s) => s.format === 'structured' && s.subformat === 'uri')!;
    expect(location.content).toBe(`${gw.url}/nlip/upload/`);

    const form = new FormData();
    form.append('contents', new Blob([Buffer.from('hello bytes')], { type: 'audio/wav' }), 'memo.wav');
    const up = await fetch(String(location.content), { method: 'POST', body: form });
    expect(up.status).toBe(200);
    const upReply = checkReply(await up.json());
    expect(upReply.content).toContain('File memo.wav uploaded (11 bytes)');
    const reference = upReply.submessages!.find((s) => s.subformat === 'uri')!;
    expect(String(reference.content)).toMatch(new RegExp(`^${gw.url}/nlip/upload/upload_[A-Za-z0-9_-]{22}$`));

    await new StrictNlipClient(`${gw.url}/nlip/`).ask('transcribe this', [reference]);
    expect(last().body.submessages).toContainEqual({ format: 'binary', subformat: 'audio/wav', content: Buffer.from('hello bytes').toString('base64'), label: 'memo.wav' });
  });

  it('names an unknown upload reference instead of fetching anything', async () => {
    const reply = await new StrictNlipClient(`${gw.url}/nlip/`).ask('use my file', [
      { format: 'structured', subformat: 'uri', content: `${gw.url}/nlip/upload/upload_AAAAAAAAAAAAAAAAAAAAAA` },
      { format: 'structured', subformat: 'uri', content: 'http://169.254.169.254/latest/meta-data' },
    ]);
    expect(reply.content).toContain('An upload this message references is unknown or has expired');
    expect(last().body.content).toBe('use my file');
    expect((last().body.submessages ?? []).some((s: { format: string }) => s.format === 'binary')).toBe(false);
  });

  it('rejects an upload without the contents field, and one over the size cap', async () => {
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    const bad = await fetch(`${gw.url}/nlip/upload/`, { method: 'POST', body: form });
    expect(bad.status).toBe(400);
    expect(checkReply(await bad.json()).content).toContain('field "contents"');
    const big = new FormData();
    big.append('contents', new Blob([new Uint8Array(8 * 1024 * 1024 + 1)]), 'big.bin');
    const tooBig = await fetch(`${gw.url}/nlip/upload/`, { method: 'POST', body: big });
    expect(tooBig.status).toBe(413);
    checkReply(await tooBig.json());
  });
});
