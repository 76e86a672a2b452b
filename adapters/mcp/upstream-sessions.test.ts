import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClientSession } from '../../src/core/agent.ts';
import { silentLogger } from '../../src/base/logger.ts';
import { CallScopes } from './call-scope.ts';
import { McpAdapterConfigSchema } from './config.ts';
import { UpstreamSessions, mirroredCapabilities } from './upstream-sessions.ts';

/** A pool for an HTTP upstream nobody listens on: connections open lazily, so none is made here. */
function pool(limits: Record<string, unknown>) {
  const config = McpAdapterConfigSchema.parse({ url: 'http://127.0.0.1:9/mcp', upstreamSessions: limits });
  const base = { agent: 'a', config, baseDir: '.', log: silentLogger, scopes: new CallScopes(), onToolsChanged: () => undefined };
  return new UpstreamSessions(config, base, silentLogger);
}

const session = (id: string, owner: string, notes: unknown[] = []): ClientSession => ({ id, owner, capabilities: {}, notify: (n) => void notes.push(n) });

describe('upstream sessions per client session', () => {
  it('gives each client session its own upstream session, the same one on every call', async () => {
    const p = pool({});
    const one = p.forCall({ session: session('s1', 'alice') }, false);
    expect(p.forCall({ session: session('s1', 'alice') }, false)).toBe(one);
    expect(p.forCall({ session: session('s2', 'alice') }, false)).not.toBe(one);
    expect(p.forCall(undefined, false)).toBe(p.forCall({}, false)); // no session: the shared one
    await p.closeAll();
  });

  it('keeps at most perPrincipal per principal and max in all, whatever the sequence (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.constantFrom('alice', 'bob', 'carol')), { maxLength: 60 }), async (calls) => {
        const p = pool({ perPrincipal: 2, max: 4 });
        for (const [n, owner] of calls) {
          p.forCall({ session: session(`${owner}-${n}`, owner) }, false);
          for (const who of ['alice', 'bob', 'carol']) expect(p.dedicatedCount(who)).toBeLessThanOrEqual(2);
          expect(p.dedicatedCount()).toBeLessThanOrEqual(4);
        }
        await p.closeAll();
      }),
    );
  });

  it('forgets a client session that ended', async () => {
    const p = pool({});
    p.forCall({ session: session('s1', 'alice') }, false);
    await p.end('s1');
    expect(p.dedicatedCount()).toBe(0);
    await p.closeAll();
  });

  it('subscribes a shared upstream session once, and unsubscribes after the last subscriber', () => {
    const p = pool({ perClient: false });
    const [a, b] = [session('a', 'alice'), session('b', 'bob')];
    expect(p.subscribe('x://r', a)).toBe(true);
    expect(p.subscribe('x://r', b)).toBe(false);
    expect(p.unsubscribe('x://r', a)).toBe(false);
    expect(p.unsubscribe('x://r', b)).toBe(true);
    expect(p.unsubscribe('x://r', b)).toBe(false);
  });

  it('bounds the subscriptions kept for a shared upstream session, per client session', () => {
    const p = pool({ perClient: false });
    const a = session('a', 'alice');
    for (let i = 0; i < 64; i++) p.subscribe(`x://r${i}`, a);
    expect(() => p.subscribe('x://one-too-many', a)).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
    expect(p.subscribe('x://r1', a)).toBe(false); // already subscribed: no new entry
    expect(p.subscribe('x://r1', session('b', 'bob'))).toBe(false);
  });

  it('declares upstream only what the client declared', () => {
    expect(mirroredCapabilities({ elicitation: { form: {} }, roots: {} })).toEqual({ elicitation: { form: {} } });
    expect(mirroredCapabilities({})).toEqual({});
  });
});
