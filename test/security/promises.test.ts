/**
 * Issue 11, "/await checks nobody": a promise token belongs to the principal whose ask made it. Any
 * other caller — checking in, long-polling, cancelling, through `/await`, the MCP `await` tool, MCP
 * tasks, an NLIP promise token or the webtool `await` action — gets exactly the answer a token that
 * was never issued gets. Two anonymous callers differ by address (127.0.0.1 = alice, 127.0.0.2 = bob).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.ts';
import { scriptedCalls } from '../support/scripted-agent.ts';
import { alice, bob, McpSession, NEVER_ISSUED, nlipMessage, partsOf, postJson, visible, type Fetch } from './owner-support.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({
    defaults: { promiseAfterMs: 50 },
    agents: [
      { name: 'bot', kind: 'scripted' },
      { name: 'locked', kind: 'scripted', requireAuth: true },
    ],
  });
});
afterAll(() => gw?.close());

const ask = (who: Fetch, text: string, agent = 'bot', headers: Record<string, string> = {}) =>
  postJson(who, `${gw.url}/agents/${agent}/ask`, { query: { text } }, headers);
const awaitAs = (who: Fetch, token: string, action: 'checkin' | 'cancel', extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  postJson(who, `${gw.url}/await`, { promise_token: token, action, ...extra }, headers);

/** A running promise of alice's: a slow ask answered with 202 and a token. */
async function alicesPromise(text = 'slow:1500 count:1', agent = 'bot', headers: Record<string, string> = {}): Promise<string> {
  const r = await ask(alice, text, agent, headers);
  expect(r.status).toBe(202);
  return r.body.promise.token as string;
}

describe('/await by another caller', () => {
  it('checkin: bob gets the unknown-token answer, identical to a token never issued; alice still gets her answer', async () => {
    const token = await alicesPromise();
    const unknown = await awaitAs(bob, NEVER_ISSUED, 'checkin');
    expect(unknown.body.error).toMatchObject({ code: 'INVALID_QUERY', message: 'Unknown or expired promise token' });
    expect(visible(await awaitAs(bob, token, 'checkin'))).toEqual(visible(unknown));
    const mine = await awaitAs(alice, token, 'checkin', { wait_ms: 5000 });
    expect(mine.body._meta.response_type).toBe('answer');
  });

  it('long-poll: bob waiting on alice\'s token is answered as unknown, not held until the answer', async () => {
    const token = await alicesPromise();
    const unknown = await awaitAs(bob, NEVER_ISSUED, 'checkin', { wait_ms: 3000 });
    expect(visible(await awaitAs(bob, token, 'checkin', { wait_ms: 3000 }))).toEqual(visible(unknown));
    // The answer was not consumed by bob's read: alice reads it.
    expect((await awaitAs(alice, token, 'checkin', { wait_ms: 5000 })).body._meta.response_type).toBe('answer');
  });

  it('cancel: bob cannot cancel alice\'s promise; her call goes on to its answer', async () => {
    const before = scriptedCalls.length;
    const token = await alicesPromise('slow:600 count:1 keep-running');
    const unknown = await awaitAs(bob, NEVER_ISSUED, 'cancel');
    expect(visible(await awaitAs(bob, token, 'cancel'))).toEqual(visible(unknown));
    const mine = await awaitAs(alice, token, 'checkin', { wait_ms: 5000 });
    expect(mine.body._meta.response_type).toBe('answer');
    expect(scriptedCalls.slice(before).find((c) => c.request.query.text.includes('keep-running'))?.aborted).toBe(false);
  });

  it('the owner may cancel: alice\'s cancel answers CANCELLED', async () => {
    const token = await alicesPromise();
    expect((await awaitAs(alice, token, 'cancel')).body.error.code).toBe('CANCELLED');
  });
});

describe('/await on a requireAuth agent', () => {
  it('a check-in without credentials is unknown, even from the address that asked; with them it is answered', async () => {
    const auth = { authorization: 'Bearer alice-secret' };
    const token = await alicesPromise('slow:800 count:1', 'locked', auth);
    const unknown = await awaitAs(alice, NEVER_ISSUED, 'checkin');
    expect(visible(await awaitAs(alice, token, 'checkin'))).toEqual(visible(unknown));
    expect(visible(await awaitAs(alice, token, 'cancel'))).toEqual(visible(await awaitAs(alice, NEVER_ISSUED, 'cancel')));
    expect((await awaitAs(alice, token, 'checkin', { wait_ms: 5000 }, auth)).body._meta.response_type).toBe('answer');
  });
});

describe('other protocols reach promises through the same check', () => {
  it('MCP await tool: bob\'s check-in and cancel of alice\'s token read like a token never issued', async () => {
    const token = await alicesPromise();
    const session = await McpSession.open(`${gw.url}/mcp`, bob);
    const text = async (args: Record<string, unknown>) => (await session.call('await', args)).message?.result;
    const unknown = await text({ promise_token: NEVER_ISSUED, action: 'checkin' });
    expect(unknown).toMatchObject({ isError: true });
    expect(await text({ promise_token: token, action: 'checkin' })).toEqual(unknown);
    expect(await text({ promise_token: token, action: 'cancel' })).toEqual(await text({ promise_token: NEVER_ISSUED, action: 'cancel' }));
    expect((await awaitAs(alice, token, 'checkin', { wait_ms: 5000 })).body._meta.response_type).toBe('answer');
  });

  it('MCP tasks: bob\'s tasks/get, tasks/result and tasks/cancel of alice\'s task are the unknown-task error', async () => {
    const mine = await McpSession.open(`${gw.url}/mcp`, alice);
    const created = await mine.call('ask', { query: { text: 'slow:800 count:1' } }, { ttl: 60_000 });
    const taskId = created.message?.result?.task?.taskId as string;
    expect(taskId).toMatch(/^prm_/);
    const theirs = await McpSession.open(`${gw.url}/mcp`, bob);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const unknown = (await theirs.rpc(method, { taskId: NEVER_ISSUED })).message?.error;
      expect(unknown?.code).toBe(-32602);
      expect((await theirs.rpc(method, { taskId })).message?.error, method).toEqual(unknown);
    }
    // Alice's own task was neither read nor cancelled by those calls.
    expect((await mine.rpc('tasks/result', { taskId })).message?.result?.isError).toBeUndefined();
  });

  it('NLIP: alice\'s promise token sent back by bob (check-in or cancel control) gets the unknown-token reply', async () => {
    const first = await postJson(alice, `${gw.url}/agents/bot/nlip/`, nlipMessage('slow:800 count:1'));
    const token = partsOf(first.body, 'token', 'promise')[0]?.content as string;
    expect(token).toMatch(/^prm_/);
    const checkin = (who: Fetch, t: string) => postJson(who, `${gw.url}/agents/bot/nlip/`, nlipMessage('any news?', [{ format: 'token', subformat: 'promise', content: t }]));
    expect(visible(await checkin(bob, token))).toEqual(visible(await checkin(bob, NEVER_ISSUED)));
    const cancel = (who: Fetch, t: string) =>
      postJson(who, `${gw.url}/agents/bot/nlip/`, { ...nlipMessage('cancel', [{ format: 'token', subformat: 'promise', content: t }]), messagetype: 'control' });
    expect(visible(await cancel(bob, token))).toEqual(visible(await cancel(bob, NEVER_ISSUED)));
    expect((await awaitAs(alice, token, 'checkin', { wait_ms: 5000 })).body._meta.response_type).toBe('answer');
  });

  it('webtool await action: bob gets what a never-issued token gets', async () => {
    const token = await alicesPromise();
    const call = (t: string) => postJson(bob, `${gw.url}/webtools/bot`, { action: 'await', request: { promise_token: t, action: 'checkin' } });
    expect(visible(await call(token))).toEqual(visible(await call(NEVER_ISSUED)));
    expect((await awaitAs(alice, token, 'checkin', { wait_ms: 5000 })).body._meta.response_type).toBe('answer');
  });
});
