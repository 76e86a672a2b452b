import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/core/agent.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { UpstreamSession } from './session.ts';

function ctx(attrs: Record<string, string> | null): CallContext {
  return {
    signal: new AbortController().signal,
    requestId: 't',
    log: silentLogger,
    ...(attrs ? { conversation: { id: 'c', prev: [], attrs }, setConversationAttr: async (k: string, v: string) => void (attrs[k] = v) } : {}),
  };
}
const cookies = (...lines: string[]) => {
  const h = new Headers();
  for (const l of lines) h.append('set-cookie', l);
  return h;
};

describe('NLIP upstream session', () => {
  it('keeps cookies by name, honours expiry, and persists them per agent', async () => {
    const attrs: Record<string, string> = {};
    const s = UpstreamSession.load(ctx(attrs), 'a');
    s.takeCookies(cookies('sid=1; Path=/; HttpOnly', 'theme=dark', 'old=x; Max-Age=0'));
    expect(s.cookieHeader()).toBe('sid=1; theme=dark');
    s.takeCookies(cookies('theme=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'sid=2'));
    expect(s.cookieHeader()).toBe('sid=2');
    await s.save(ctx(attrs));
    expect(Object.keys(attrs).sort()).toEqual(['nlip:a:cookies', 'nlip:a:tokens']);
    expect(UpstreamSession.load(ctx(attrs), 'a').cookieHeader()).toBe('sid=2');
    expect(UpstreamSession.load(ctx(attrs), 'b').cookieHeader()).toBeUndefined();
  });

  it('keeps the conversation tokens of the last reply that had any, exactly', () => {
    const s = UpstreamSession.load(ctx({}), 'a');
    s.takeTokens([{ format: 'token', subformat: 'conversation_up', content: 'T1', label: 'x' }, { format: 'token', subformat: 'authentication', content: 'no' }]);
    s.takeTokens([{ format: 'text', subformat: 'english', content: 'no tokens here' }]);
    expect(s.tokenParts()).toEqual([{ format: 'token', subformat: 'conversation_up', content: 'T1' }]);
    expect(s.hasTokens).toBe(true);
  });

  it('falls back to a snapshot without a conversation, and survives garbage in the store', () => {
    const snap = { cookies: { sid: '9' }, tokens: [{ subformat: 'conversation', content: 'T' }] };
    expect(UpstreamSession.load(ctx(null), 'a', snap).cookieHeader()).toBe('sid=9');
    const broken = UpstreamSession.load(ctx({ 'nlip:a:cookies': 'null', 'nlip:a:tokens': '{oops' }), 'a');
    expect(broken.cookieHeader()).toBeUndefined();
    expect(broken.tokenParts()).toEqual([]);
  });
});
