/**
 * `limits.maxCallsPerPrincipal`, against a real gateway on loopback: the agent calls one caller keeps
 * running at once, counted until each call ends (also after it became a promise and its connection
 * closed), refused past the cap with 429 + Retry-After in each protocol's shape, with other callers
 * served and the slot back once a call ends. Two anonymous callers differ by address (alice =
 * 127.0.0.1, bob = 127.0.0.2).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { anonymousPrincipal } from '../../src/core/principal.ts';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { ALICE_KEY } from './support.ts';
import { alice, bob, fetchFrom, McpSession, nlipMessage, postJson, type Fetch } from './owner-support.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const SLOW = 'slow:60000 count:1';
const ask = (who: Fetch, text = SLOW, headers: Record<string, string> = {}) => postJson(who, `${gw!.url}/agents/bot/ask`, { query: { text } }, headers);
const cancel = (who: Fetch, token: string) => postJson(who, `${gw!.url}/await`, { promise_token: token, action: 'cancel' });

/** `n` slow asks of `who`, each answered with a promise (202) whose call goes on after the connection closed. */
async function holdCalls(who: Fetch, n: number, headers: Record<string, string> = {}): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await ask(who, SLOW, headers);
    expect(r.status).toBe(202);
    tokens.push(r.body.promise.token);
  }
  return tokens;
}

describe('calls one principal keeps running (limits.maxCallsPerPrincipal)', () => {
  it('regression "one address can hold a slow agent\'s whole pool": promises count until their call ends; past the cap 429, others served', async () => {
    gw = await startGateway({ limits: { maxCallsPerPrincipal: 3 }, defaults: { promiseAfterMs: 30 }, agents: [{ name: 'bot', kind: 'scripted' }] });
    const tokens = await holdCalls(alice, 3);

    const refused = await ask(alice);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Every protocol asks through the same core, so every one is refused, in its own shape.
    const nlip = await postJson(alice, `${gw.url}/agents/bot/nlip/`, nlipMessage(SLOW));
    // NLIP answers a refused message with an NLIP reply and HTTP 200 (the reference client raises on any other status).
    expect(nlip.status).toBe(200);
    expect(nlip.body.submessages).toContainEqual({ format: 'error', subformat: 'code', content: 'RATE_LIMITED' });
    const webtool = await postJson(alice, `${gw.url}/webtools/bot`, { action: 'ask', request: { query: { text: 'count:1' } } });
    expect(webtool.status).toBe(429);
    expect(webtool.body).toMatchObject({ status: 'error', error: { code: 'RATE_LIMIT' } });
    const mcp = (await (await McpSession.open(`${gw.url}/mcp`, alice)).call('ask', { query: { text: 'count:1' } })).message?.result;
    expect(mcp?.isError).toBe(true);

    // Another caller is served while alice holds her three.
    expect((await ask(bob, 'count:1')).status).toBe(200);
    // Operators see each refusal counted under the cap's name.
    const metrics = await (await alice(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/nlgate_rejections_total\{limit="maxCallsPerPrincipal",agent="bot"\} 4\b/);

    // A call that ends gives its slot back: alice may start one more, and only one.
    expect((await cancel(alice, tokens[0]!)).status).toBe(200);
    expect((await ask(alice, 'count:1')).status).toBe(200);
    await holdCalls(alice, 1);
    expect((await ask(alice, 'count:1')).status).toBe(429);
  });

  it('a call refused by its agent\'s rate limit or cut by its timeout holds no slot afterwards', async () => {
    gw = await startGateway({
      limits: { maxCallsPerPrincipal: 2 },
      defaults: { promiseAfterMs: 30 },
      agents: [
        { name: 'bot', kind: 'scripted', timeoutMs: 300 },
        { name: 'limited', kind: 'scripted', rateLimit: { requests: 1, windowMs: 60_000 } },
      ],
    });
    const limited = (text: string) => postJson(alice, `${gw!.url}/agents/limited/ask`, { query: { text } });
    expect((await limited('count:1')).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await limited('count:1')).status).toBe(429);
    // Timed-out promises free their slots: two rounds of two, never refused.
    for (let round = 0; round < 2; round++) {
      const tokens = await holdCalls(alice, 2);
      expect((await ask(alice)).status).toBe(429);
      await new Promise((r) => setTimeout(r, 450));
      const after = await postJson(alice, `${gw.url}/await`, { promise_token: tokens[0], action: 'checkin' });
      expect(after.body).toMatchObject({ error: { code: 'TIMEOUT' } });
    }
  });

  it('a structured tool call made a promise (MCP tool tasks) is refused before its promise exists, not failed after', async () => {
    gw = await startGateway({ limits: { maxCallsPerPrincipal: 2 }, defaults: { promiseAfterMs: 30 }, agents: [{ name: 'bot', kind: 'scripted' }] });
    await holdCalls(alice, 2);
    const asAlice = { principal: anonymousPrincipal('127.0.0.1') };
    await expect(gw.gateway.callToolAsPromise('bot', 'echo', { say: 'hi' }, asAlice)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    // Another principal gets its promise, and the call behind it frees its slot when it ends.
    const asBob = { principal: anonymousPrincipal('127.0.0.2') };
    const info = await gw.gateway.callToolAsPromise('bot', 'echo', { say: 'hi' }, asBob);
    expect(info.token).toMatch(/^prm_/);
    const done = await gw.gateway.await({ promise_token: info.token, action: 'checkin', wait_ms: 2_000 }, asBob);
    expect(done._meta.response_type).toBe('answer');
    await gw.gateway.callToolAsPromise('bot', 'echo', { say: 'again' }, asBob);
    await gw.gateway.callToolAsPromise('bot', 'echo', { say: 'and again' }, asBob);
  });

  it('regression "many addresses together hold every call the replica can run": limits.maxCallsInFlight caps the anonymous class, and a verified key is still served', async () => {
    gw = await startGateway({
      auth: { apiKeys: [{ principal: 'alice', key: ALICE_KEY }] },
      limits: { maxCallsPerPrincipal: 2, maxCallsInFlight: 3 },
      defaults: { promiseAfterMs: 30 },
      agents: [{ name: 'bot', kind: 'scripted' }],
    });
    const carol = fetchFrom('127.0.0.3');
    await holdCalls(alice, 2);
    const [bobs] = await holdCalls(bob, 1);
    const refused = await ask(carol);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error.message).toMatch(/anonymous/);
    // Verified principals have a class of their own: anonymous calls, however many, never take it.
    expect((await ask(carol, 'count:1', { authorization: `Bearer ${ALICE_KEY}` })).status).toBe(200);
    // With an auth section, /metrics wants a verified credential.
    const metrics = await (await alice(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ALICE_KEY}` } })).text();
    expect(metrics).toMatch(/nlgate_rejections_total\{limit="maxCallsInFlight",agent="bot"\} 1\b/);
    // One call ending makes room for the next caller.
    expect((await cancel(bob, bobs!)).status).toBe(200);
    expect((await ask(carol, 'count:1')).status).toBe(200);
  });

  it("a key's own maxCalls replaces the default for its principal, and keyed calls do not use the address's slots", async () => {
    gw = await startGateway({
      auth: { apiKeys: [{ principal: 'alice', key: ALICE_KEY, maxCalls: 4 }] },
      limits: { maxCallsPerPrincipal: 1 },
      defaults: { promiseAfterMs: 30 },
      agents: [{ name: 'bot', kind: 'scripted' }],
    });
    const keyed = { authorization: `Bearer ${ALICE_KEY}` };
    await holdCalls(alice, 4, keyed);
    expect((await ask(alice, 'count:1', keyed)).status).toBe(429);
    // The same address without the key is another principal, with the default's one slot.
    await holdCalls(alice, 1);
    expect((await ask(alice, 'count:1')).status).toBe(429);
  });
});
