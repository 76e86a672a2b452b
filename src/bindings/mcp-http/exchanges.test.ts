import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { MemoryStore } from '../../store/index.ts';
import { answersTopic, SessionExchanges, type Exchange } from './exchanges.ts';

/** A store whose topic subscriptions are counted. */
function countedStore(): { store: MemoryStore; subscribed: () => number; unsubscribed: () => number } {
  const store = new MemoryStore();
  let subs = 0;
  let unsubs = 0;
  const onTopic = store.onTopic.bind(store);
  store.onTopic = async (topic, handler) => {
    subs++;
    const stop = await onTopic(topic, handler);
    return async () => {
      unsubs++;
      await stop();
    };
  };
  return { store, subscribed: () => subs, unsubscribed: () => unsubs };
}

function exchange(): Exchange & { got: JSONRPCMessage[]; closed: number } {
  const e = { got: [] as JSONRPCMessage[], closed: 0, deliver: (m: JSONRPCMessage) => void e.got.push(m), close: () => void e.closed++ };
  return e;
}

const cancel = (requestId: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } });
const tick = () => new Promise((r) => setImmediate(r));

afterEach(() => vi.useRealTimers());

describe('the open exchanges of 2025 sessions on a replica (issue 25)', () => {
  it('what the client posts for a session reaches every exchange of that session open here, and no other', async () => {
    const { store } = countedStore();
    const exchanges = new SessionExchanges(store);
    const [a, b, other] = [exchange(), exchange(), exchange()];
    await exchanges.enter('s1', a);
    const leaveB = await exchanges.enter('s1', b);
    await exchanges.enter('s2', other);
    await store.publishTopic(answersTopic('s1'), JSON.stringify([cancel(1)]));
    await tick();
    leaveB();
    await store.publishTopic(answersTopic('s1'), JSON.stringify([cancel(2), cancel(3)]));
    await store.publishTopic(answersTopic('s1'), 'not json');
    await tick();
    expect(a.got).toEqual([cancel(1), cancel(2), cancel(3)]);
    expect(b.got).toEqual([cancel(1)]);
    expect(other.got).toEqual([]);
    exchanges.closeAll('s1');
    expect([a.closed, b.closed, other.closed]).toEqual([1, 0, 0]);
  });

  it('one subscription per session serves overlapping and back-to-back exchanges, and ends 10 s after the last', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, subscribed, unsubscribed } = countedStore();
    const exchanges = new SessionExchanges(store);
    const first = await exchanges.enter('s', exchange());
    const second = await exchanges.enter('s', exchange());
    first();
    second();
    second(); // leaving twice changes nothing
    const third = await exchanges.enter('s', exchange());
    third();
    expect([subscribed(), unsubscribed()]).toEqual([1, 0]);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(unsubscribed()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(unsubscribed()).toBe(1);
    (await exchanges.enter('s', exchange()))();
    expect(subscribed()).toBe(2);
  });

  it('at most 256 sessions keep an idle subscription: the rest end with their last exchange', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, unsubscribed } = countedStore();
    const exchanges = new SessionExchanges(store);
    for (let i = 0; i < 300; i++) (await exchanges.enter(`s${i}`, exchange()))();
    await vi.advanceTimersByTimeAsync(0);
    expect(unsubscribed()).toBe(44);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(unsubscribed()).toBe(300);
  });

  it('an exchange whose subscription fails is not registered, and the next one subscribes again', async () => {
    const { store } = countedStore();
    const exchanges = new SessionExchanges(store);
    const onTopic = store.onTopic;
    store.onTopic = () => Promise.reject(new Error('store down'));
    await expect(exchanges.enter('s', exchange())).rejects.toThrow('store down');
    store.onTopic = onTopic;
    const e = exchange();
    await exchanges.enter('s', e);
    await store.publishTopic(answersTopic('s'), JSON.stringify([cancel(9)]));
    await tick();
    expect(e.got).toEqual([cancel(9)]);
  });

  it('enterHeard enters at once only a session already heard here, lingering or open, and counts as enter does', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, subscribed, unsubscribed } = countedStore();
    const exchanges = new SessionExchanges(store);
    expect(exchanges.enterHeard('s', exchange())).toBeUndefined(); // not subscribed: the caller uses enter
    const pending = exchanges.enter('s', exchange());
    expect(exchanges.enterHeard('s', exchange())).toBeUndefined(); // subscribing, not heard yet
    (await pending)();
    // Lingering after its last exchange: entered at once, and the linger is over.
    const e = exchange();
    const leave = exchanges.enterHeard('s', e);
    expect(leave).toBeTypeOf('function');
    await store.publishTopic(answersTopic('s'), JSON.stringify([cancel(4)]));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(e.got).toEqual([cancel(4)]);
    expect([subscribed(), unsubscribed()]).toEqual([1, 0]);
    leave!();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(unsubscribed()).toBe(1);
    expect(exchanges.enterHeard('s', exchange())).toBeUndefined(); // unsubscribed: no longer heard
  });

  it('enterHeard never enters a session whose subscription failed', async () => {
    const { store } = countedStore();
    const exchanges = new SessionExchanges(store);
    store.onTopic = () => Promise.reject(new Error('store down'));
    await expect(exchanges.enter('s', exchange())).rejects.toThrow('store down');
    expect(exchanges.enterHeard('s', exchange())).toBeUndefined();
  });
});
