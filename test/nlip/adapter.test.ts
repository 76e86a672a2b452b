import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nlipAdapter } from '../../adapters/nlip/index.ts';
import type { Agent, CallContext } from '../../src/core/agent.ts';
import type { AgentEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/base/logger.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { startNlipTestAgent, type NlipTestAgent } from './nlip-test-agent.ts';

/** The `nlip` adapter against a real NLIP server agent over HTTP (no gateway in between). */

let upstream: NlipTestAgent;
beforeAll(async () => {
  upstream = await startNlipTestAgent();
});
afterAll(() => upstream.close());

function makeAgent(extra: Record<string, unknown> = {}): Agent {
  const config = nlipAdapter.configSchema.parse({ url: upstream.url, ...extra });
  return nlipAdapter.create({ ...config, name: 'up', kind: 'nlip' }, { log: silentLogger, baseDir: '.' } as never);
}

/** A CallContext whose conversation attrs live in `attrs` (what the core's store would keep). */
function ctxFor(attrs: Record<string, string> | null, extra: Partial<CallContext> = {}): CallContext {
  return {
    signal: AbortSignal.timeout(10_000),
    requestId: 'test',
    log: silentLogger,
    ...(attrs ? { conversation: { id: 'conv_1', prev: [], attrs }, setConversationAttr: async (k: string, v: string) => void (attrs[k] = v) } : {}),
    ...extra,
  };
}

async function run(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const ask = (text: string, rest: Partial<AskRequest> = {}): AskRequest => ({ ...rest, query: { text, ...(rest.query ?? {}) } });
const last = () => upstream.received.at(-1)!;

describe('nlip adapter: the ask as an NLIP message', () => {
  it('posts a lowercase message to {url}/nlip/ that a strict server accepts, and maps the reply', async () => {
    const events = await run(makeAgent().ask(ask('pasta'), ctxFor({})));
    expect(last().path).toBe('/nlip/');
    expect(last().body).toMatchObject({ format: 'text', subformat: 'english', content: 'pasta' });
    const results = events.filter((e) => e.type === 'result').map((e) => (e as { item: Record<string, unknown> }).item);
    expect(results[0]).toEqual({ '@type': 'SearchSummary', text: 'You asked "pasta" (turn 1 of this session)' });
    expect(results[1]).toMatchObject({ '@id': 'urn:nlip:1', score: 0.9, site: 'nlip-test' });
    // JSON sent as text content is read too.
    expect(results[2]).toMatchObject({ '@id': 'urn:nlip:2', name: 'second answer' });
    expect(events.at(-1)).toEqual({ type: 'complete' });
  });

  it('keeps the cookie session and the upstream conversation token per conversation', async () => {
    const agent = makeAgent();
    const attrs: Record<string, string> = {};
    await run(agent.ask(ask('first'), ctxFor(attrs)));
    const minted = last().body; // the first message carries no token
    expect(JSON.stringify(minted)).not.toContain('conversation_nlipagent');
    const second = await run(agent.ask(ask('second'), ctxFor(attrs)));
    expect(last().headers.cookie).toMatch(/sid=[0-9a-f]+/);
    const echoed = (last().body.submessages as Array<Record<string, unknown>>).filter((s) => s.format === 'token');
    expect(echoed).toHaveLength(1);
    expect(echoed[0]!.subformat).toBe('conversation_nlipagent');
    expect(upstream.minted.has(String(echoed[0]!.content))).toBe(true);
    expect(second.find((e) => e.type === 'result')).toMatchObject({ item: { text: 'You asked "second" (turn 2 of this session)' } });
    // Another conversation is another session.
    await run(agent.ask(ask('elsewhere'), ctxFor({})));
    expect(last().headers.cookie).toBeUndefined();
  });

  it('sends the conversation so far as a context part until the upstream holds a token', async () => {
    await run(makeAgent().ask(ask('and vegan?', { context: { prev: ['soup'] } }), ctxFor({})));
    expect(last().body.submessages).toContainEqual({ format: 'structured', subformat: 'json', content: { prev: ['soup'] }, label: 'context' });
  });

  it('maps filters, location and attachments to structured, location and binary parts', async () => {
    const request = ask('near me', {
      query: { text: 'near me', itemType: 'Recipe', location: 'Seattle' },
      context: { attachments: [{ '@type': 'MediaObject', encodingFormat: 'image/png', contentUrl: 'data:image/png;base64,AAEC', nlipSubformat: 'image/png' }, { '@type': 'MediaObject', contentUrl: 'http://169.254.169.254/secret' }] },
    });
    await run(makeAgent({ label: 'user' }).ask(request, ctxFor(null)));
    const body = last().body;
    expect(body.label).toBe('user');
    expect(body.submessages).toEqual([
      { format: 'location', subformat: 'text', content: 'Seattle' },
      { format: 'structured', subformat: 'json', content: { itemType: 'Recipe' }, label: 'filters' },
      // Only the data: URL attachment goes; a URL is never fetched (SSRF).
      { format: 'binary', subformat: 'image/png', content: 'AAEC' },
    ]);
  });

  it('follows a 308 within the configured origin, keeping the cookie it set', async () => {
    const events = await run(makeAgent({ url: `${upstream.url}/old` }).ask(ask('moved'), ctxFor({})));
    expect(last().path).toBe('/nlip/');
    expect(last().headers.cookie).toContain('moved=yes');
    expect(events.some((e) => e.type === 'result')).toBe(true);
  });

  it('does not follow a redirect to another origin', async () => {
    await expect(run(makeAgent().ask(ask('redirect-away'), ctxFor({})))).rejects.toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('another origin') });
  });

  it('turns a reply that is not NLIP into UPSTREAM_ERROR without leaking the body', async () => {
    const err = await run(makeAgent().ask(ask('garbage'), ctxFor({}))).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect((err as Error).message).not.toContain('oops');
  });
});

describe('nlip adapter: control, promises, elicitation, failures', () => {
  it('6.5: answers a request for authentication with the configured credential', async () => {
    const events = await run(makeAgent({ headers: { Authorization: 'Bearer upstream-secret' } }).ask(ask('secret stuff'), ctxFor({})));
    expect(last().body.submessages).toContainEqual({ format: 'token', subformat: 'authentication', content: 'Bearer upstream-secret' });
    expect(last().headers.authorization).toBe('Bearer upstream-secret');
    expect(events.some((e) => e.type === 'result')).toBe(true);
  });

  it('6.5: without a credential the call fails UNAUTHORIZED', async () => {
    await expect(run(makeAgent().ask(ask('secret stuff'), ctxFor({})))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('6.5: uses the client credential the core forwards (forwardCredentials)', async () => {
    const events = await run(makeAgent().ask(ask('secret again'), ctxFor({}, { credentials: { authorization: 'Bearer upstream-secret' } })));
    expect(events.some((e) => e.type === 'result')).toBe(true);
  });

  it('a promise token becomes a promise; checking in with it (from any replica, no conversation) gets the answer', async () => {
    const agent = makeAgent();
    const events = await run(agent.ask(ask('slow one'), ctxFor({})));
    const promise = events.find((e) => e.type === 'promise') as Extract<AgentEvent, { type: 'promise' }>;
    expect(promise.promise.message).toBe('working on it');
    const answer = await run(agent.await!(promise.promise.token, 'checkin', ctxFor(null)));
    expect(last().body.submessages).toContainEqual(expect.objectContaining({ format: 'token', subformat: 'promise' }));
    // The packed session went along: cookie and conversation token.
    expect(last().headers.cookie).toMatch(/sid=/);
    expect(last().body.submessages).toContainEqual(expect.objectContaining({ subformat: 'conversation_nlipagent' }));
    expect(answer.find((e) => e.type === 'result')).toMatchObject({ item: { text: 'slow answer ready (turn 2)' } });
  });

  it('cancel sends a control message and reports CANCELLED', async () => {
    const agent = makeAgent();
    const events = await run(agent.ask(ask('slow two'), ctxFor({})));
    const token = (events.find((e) => e.type === 'promise') as Extract<AgentEvent, { type: 'promise' }>).promise.token;
    const cancelled = await run(agent.await!(token, 'cancel', ctxFor(null)));
    expect(last().body).toMatchObject({ messagetype: 'control', content: 'cancel' });
    expect(cancelled).toEqual([{ type: 'error', code: 'CANCELLED', message: 'The call was cancelled' }]);
  });

  it('a json part labelled elicitation becomes an elicitation', async () => {
    const events = await run(makeAgent().ask(ask('elicit please'), ctxFor({})));
    expect(events.find((e) => e.type === 'elicitation')).toMatchObject({ elicitation: { text: 'Which sauce?', questions: [{ id: 'sauce' }] } });
  });

  it('an error part becomes a failure with its NLWeb code', async () => {
    const events = await run(makeAgent().ask(ask('fail now'), ctxFor({})));
    expect(events.find((e) => e.type === 'error')).toEqual({ type: 'error', code: 'NO_RESULTS', message: 'nothing matched that' });
  });
});
