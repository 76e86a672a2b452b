import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/core/agent.ts';
import { silentLogger } from '../../src/base/logger.ts';
import type { AskRequest } from '../../src/protocol/nlweb/index.ts';
import { NlwebAdapterConfigSchema } from './config.ts';
import { buildAskBody, buildAwaitBody, buildHeaders, type RequestSettings } from './request.ts';

const settings: RequestSettings = { streaming: true, version: '0.55' };
const ctx = (extra: Partial<CallContext> = {}): CallContext => ({
  signal: new AbortController().signal, requestId: 'r1', log: silentLogger, ...extra,
});
const conversation = (extra: Partial<NonNullable<CallContext['conversation']>> = {}) => ({ id: 'c1', prev: ['first', 'second'], attrs: {}, ...extra });
const request: AskRequest = {
  query: { text: 'pasta', site: 'a.example', itemType: 'Recipe', price: 'cheap' },
  prefer: { streaming: false, mode: 'list, summarize', response_format: 'chatgpt_app' },
  meta: { version: '0.55', user: 'u1', session_context: { gateway_conversation: 'g-1' } },
};

describe('buildAskBody (spec 3)', () => {
  it('keeps query filters, prefer and meta, and asks for the configured streaming', () => {
    const body = buildAskBody(request, ctx(), settings);
    expect(body.query).toEqual(request.query);
    expect(body.prefer).toEqual({ streaming: true, mode: 'list, summarize', response_format: 'chatgpt_app' });
    expect(body.meta).toMatchObject({ version: '0.55', user: 'u1' });
    expect(buildAskBody(request, ctx(), { ...settings, streaming: false }).prefer).toMatchObject({ streaming: false });
  });

  it('sends the upstream its own session_context back, never the client one', () => {
    const upstreamSession = { conversation_id: 'up-9', upstream_session: 4 };
    const body = buildAskBody(request, ctx({ conversation: conversation({ upstreamSession }) }), settings);
    expect((body.meta as Record<string, unknown>).session_context).toEqual(upstreamSession);
    const fresh = buildAskBody(request, ctx({ conversation: conversation() }), settings);
    expect(fresh.meta).not.toHaveProperty('session_context');
  });

  it('passes the client session_context through when the core keeps no conversation', () => {
    expect((buildAskBody(request, ctx(), settings).meta as Record<string, unknown>).session_context).toEqual({ gateway_conversation: 'g-1' });
  });

  it('fills context.prev from the conversation only when the client sent none', () => {
    const filled = buildAskBody(request, ctx({ conversation: conversation() }), settings);
    expect(filled.context).toEqual({ prev: ['first', 'second'] });
    const own = buildAskBody({ ...request, context: { prev: ['mine'], memory: 'vegan' } }, ctx({ conversation: conversation() }), settings);
    expect(own.context).toEqual({ prev: ['mine'], memory: 'vegan' });
    expect(buildAskBody(request, ctx(), settings)).not.toHaveProperty('context');
  });

  it('writes both version and api_version for a v0.54 upstream', () => {
    const body = buildAskBody({ query: { text: 'x' }, meta: { api_version: '0.9' } }, ctx(), { ...settings, version: '0.54' });
    expect(body.meta).toEqual({ version: '0.54', api_version: '0.54' });
  });

  it('does not change the request it was given', () => {
    const copy = structuredClone(request);
    buildAskBody(request, ctx({ conversation: conversation({ upstreamSession: { a: 1 } }) }), settings);
    expect(request).toEqual(copy);
  });
});

describe('buildAwaitBody (spec 4.2) and buildHeaders (7.2)', () => {
  it('builds the await body', () => {
    expect(buildAwaitBody('tok', 'cancel', settings)).toEqual({ promise_token: 'tok', action: 'cancel', meta: { version: '0.55' } });
  });

  it('sends Authorization only from ctx.credentials or config headers', () => {
    const plain = buildHeaders({ ...settings, headers: { 'X-Api-Key': 'k' } }, ctx(), true);
    expect(plain['accept']).toBe('text/event-stream');
    expect(plain['x-api-key']).toBe('k');
    expect(plain['authorization']).toBeUndefined();
    const configured = buildHeaders({ ...settings, headers: { Authorization: 'Bearer gateway' } }, ctx(), false);
    expect(configured['authorization']).toBe('Bearer gateway');
    expect(configured['accept']).toBe('application/json');
    const forwarded = buildHeaders({ ...settings, headers: { Authorization: 'Bearer gateway' } }, ctx({ credentials: { authorization: 'Bearer client' } }), false);
    expect(forwarded['authorization']).toBe('Bearer client');
  });
});

describe('NlwebAdapterConfigSchema', () => {
  it('strips trailing slashes and applies defaults', () => {
    expect(NlwebAdapterConfigSchema.parse({ url: 'http://127.0.0.1:9000/nlweb/' })).toEqual({
      url: 'http://127.0.0.1:9000/nlweb', streaming: true, version: '0.55', scoreScale: '0-100',
    });
  });

  it.each([
    [{}],
    [{ url: 'ftp://example.com' }],
    [{ url: 'not a url' }],
    [{ url: 'http://a.example', streaming: 'yes' }],
    [{ url: 'http://a.example', version: '0.6' }],
    [{ url: 'http://a.example', urll: 'typo' }],
  ])('rejects %j', (raw) => {
    expect(NlwebAdapterConfigSchema.safeParse(raw).success).toBe(false);
  });
});
