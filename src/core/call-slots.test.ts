import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../base/errors.ts';
import { silentLogger } from '../base/logger.ts';
import type { AgentEntry } from './agents.ts';
import { callContext } from './call-context.ts';
import { CallSlots, type FreeSlot } from './call-slots.ts';
import type { Conversations } from './conversations.ts';

describe('CallSlots', () => {
  it('refuses past the cap with RATE_LIMITED and a Retry-After, per principal, and takes nothing when it refuses', () => {
    const slots = new CallSlots(2);
    slots.take('anon:a', 'bot');
    slots.take('anon:a', 'bot');
    const refused = (() => {
      try {
        slots.take('anon:a', 'bot');
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 1 });
    expect(slots.heldBy('anon:a')).toBe(2);
    expect(() => slots.take('anon:b', 'bot')).not.toThrow();
  });

  it("a principal's own limit replaces the default", () => {
    const slots = new CallSlots(1);
    for (let i = 0; i < 5; i++) slots.take('key:svc', 'bot', 5);
    expect(() => slots.take('key:svc', 'bot', 5)).toThrow(GatewayError);
  });

  it('freeing twice gives back one slot, and a principal holding none is forgotten', () => {
    const slots = new CallSlots(1);
    const free = slots.take('anon:a', 'bot');
    free();
    free();
    expect(slots.heldBy('anon:a')).toBe(0);
    expect((slots as unknown as { running: Map<string, number> }).running.size).toBe(0);
    slots.take('anon:a', 'bot');
    expect(() => slots.take('anon:a', 'bot')).toThrow(GatewayError);
  });

  it('matches a model: held = taken − freed, never above the cap, over any sequence of takes and frees', () => {
    const op = fc.oneof(
      fc.record({ take: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ free: fc.nat(40) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (cap, ops) => {
        const slots = new CallSlots(cap);
        const model = new Map<string, number>();
        const frees: Array<{ who: string; free: FreeSlot; done: boolean }> = [];
        for (const o of ops) {
          if ('take' in o) {
            const held = model.get(o.take) ?? 0;
            if (held >= cap) expect(() => slots.take(o.take, 'bot')).toThrow(GatewayError);
            else {
              frees.push({ who: o.take, free: slots.take(o.take, 'bot'), done: false });
              model.set(o.take, held + 1);
            }
          } else if (frees.length) {
            const f = frees[o.free % frees.length]!;
            f.free();
            if (!f.done) model.set(f.who, model.get(f.who)! - 1);
            f.done = true;
          }
          for (const who of ['a', 'b', 'c']) expect(slots.heldBy(who)).toBe(model.get(who) ?? 0);
        }
      }),
    );
  });
});

describe('callContext and its slot', () => {
  const entry = { config: { name: 'bot', timeoutMs: 20 } } as unknown as AgentEntry;
  const deps = { log: silentLogger, timeoutMs: 20, conversations: {} as Conversations };

  it('regression "a stream nobody reads holds its slot": the timeout frees the slot even when release never runs', async () => {
    const slots = new CallSlots(1);
    const handle = callContext(entry, {}, deps, undefined, slots.take('anon:a', 'bot'));
    expect(slots.heldBy('anon:a')).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(handle.ctx.signal.aborted).toBe(true);
    expect(slots.heldBy('anon:a')).toBe(0);
  });

  it('release frees the slot once, however often it runs', () => {
    const slots = new CallSlots(3);
    slots.take('anon:a', 'bot');
    const handle = callContext(entry, {}, deps, undefined, slots.take('anon:a', 'bot'));
    handle.release();
    handle.release();
    expect(slots.heldBy('anon:a')).toBe(1);
  });
});
