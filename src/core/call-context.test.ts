import { Session } from 'node:inspector/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callContext } from './call-context.ts';
import type { AgentEntry } from './agents.ts';
import type { Conversations } from './conversations.ts';
import { silentLogger } from '../base/logger.ts';

const entry = { agent: {} as AgentEntry['agent'], config: { name: 'a', kind: 'nlweb', url: 'http://127.0.0.1:1' } } as AgentEntry;
const deps = { log: silentLogger, timeoutMs: 60_000, conversations: {} as Conversations };

let session: Session;
beforeAll(() => {
  session = new Session();
  session.connect();
});
afterAll(() => session.disconnect());

/** The names a function's closure holds: V8's `[[Scopes]]` as the inspector shows them, the module's and the global scope left out. */
async function closureNames(fn: () => unknown): Promise<string[]> {
  (globalThis as { __probe?: unknown }).__probe = fn;
  try {
    const { result } = await session.post('Runtime.evaluate', { expression: 'globalThis.__probe' });
    const { internalProperties } = await session.post('Runtime.getProperties', { objectId: result.objectId!, ownProperties: true });
    const scopes = internalProperties!.find((p) => p.name === '[[Scopes]]')!.value!;
    const list = await session.post('Runtime.getProperties', { objectId: scopes.objectId!, ownProperties: true });
    const names: string[] = [];
    for (const scope of list.result) {
      // The function's own scopes (`Closure (callContext)`, `Block (callContext)`), not the module's or the global one.
      if (!/^(Closure|Block) \(/.test(scope.value?.description ?? '')) continue;
      const vars = await session.post('Runtime.getProperties', { objectId: scope.value!.objectId!, ownProperties: true });
      names.push(...vars.result.map((v) => v.name));
    }
    return names;
  } finally {
    delete (globalThis as { __probe?: unknown }).__probe;
  }
}

describe('callContext', () => {
  it('aborts its call when the client signal aborts, and not after release', () => {
    const client = new AbortController();
    const handle = callContext(entry, { signal: client.signal }, deps);
    client.abort();
    expect(handle.controller.signal.aborted).toBe(true);
    const later = new AbortController();
    const released = callContext(entry, { signal: later.signal }, deps);
    released.release();
    later.abort();
    expect(released.controller.signal.aborted).toBe(false);
  });

  it('stops following the client signal once detached', () => {
    const client = new AbortController();
    const handle = callContext(entry, { signal: client.signal }, deps);
    handle.detach();
    client.abort();
    expect(handle.controller.signal.aborted).toBe(false);
    handle.release();
  });

  // Regression (issue 25): the closures a call keeps (its release, detach, client listener and
  // timer share one V8 context) held the caller's options, and with them a binding's callbacks and
  // its whole request: every A2A SendMessage's objects were promoted to the old generation.
  it("regression: a call's closures do not hold the caller's options", async () => {
    const opts = { signal: new AbortController().signal, recordWithAnswer: () => undefined };
    const handle = callContext(entry, opts, deps);
    try {
      for (const fn of [handle.release, handle.detach]) {
        const names = await closureNames(fn);
        expect(names).not.toContain('opts');
        // The probe does see the call's own variables (so the assertion above could fail).
        expect(names).toEqual(expect.arrayContaining(['controller', 'timer', 'clientSignal']));
      }
    } finally {
      handle.release();
    }
  });
});
