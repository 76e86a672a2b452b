import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../base/errors.ts';
import { silentLogger } from '../base/logger.ts';
import type { AgentEntry } from './agents.ts';
import { callContext } from './call-context.ts';
import { CallSlots, type FreeSlot, type SlotHolder } from './call-slots.ts';
import type { Conversations } from './conversations.ts';

const anon = (id: string): SlotHolder => ({ id: `anon:${id}`, verified: false });
const key = (id: string, maxCalls?: number): SlotHolder => ({ id: `key:${id}`, verified: true, ...(maxCalls ? { maxCalls } : {}) });
const UNBOUNDED = Number.POSITIVE_INFINITY;

describe('CallSlots', () => {
  it('refuses past the cap with RATE_LIMITED and a Retry-After, per principal, and takes nothing when it refuses', () => {
    const slots = new CallSlots({ perPrincipal: 2, perClass: UNBOUNDED });
    slots.take(anon('a'), 'bot');
    slots.take(anon('a'), 'bot');
    expect(() => slots.take(anon('a'), 'bot')).toThrow(expect.objectContaining({ code: 'RATE_LIMITED', retryAfter: 1 }));
    expect(slots.heldBy('anon:a')).toBe(2);
    expect(() => slots.take(anon('b'), 'bot')).not.toThrow();
  });

  it("a principal's own maxCalls replaces the default", () => {
    const slots = new CallSlots({ perPrincipal: 1, perClass: UNBOUNDED });
    for (let i = 0; i < 5; i++) slots.take(key('svc', 5), 'bot');
    expect(() => slots.take(key('svc', 5), 'bot')).toThrow(GatewayError);
  });

  it('regression "many anonymous addresses hold every call the replica can run": the class total is capped, and verified principals keep theirs', () => {
    const slots = new CallSlots({ perPrincipal: 2, perClass: 3 });
    slots.take(anon('a'), 'bot');
    slots.take(anon('b'), 'bot');
    slots.take(anon('c'), 'bot');
    expect(() => slots.take(anon('d'), 'bot')).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
    expect(slots.heldByClass(false)).toBe(3);
    // The verified class has its own three.
    for (const who of ['x', 'y', 'z']) slots.take(key(who), 'bot');
    expect(() => slots.take(key('w'), 'bot')).toThrow(GatewayError);
  });

  it('freeing twice gives back one slot, and a principal holding none is forgotten', () => {
    const slots = new CallSlots({ perPrincipal: 1, perClass: UNBOUNDED });
    const free = slots.take(anon('a'), 'bot');
    free();
    free();
    expect(slots.heldBy('anon:a')).toBe(0);
    expect(slots.heldByClass(false)).toBe(0);
    expect((slots as unknown as { running: Map<string, number> }).running.size).toBe(0);
    slots.take(anon('a'), 'bot');
    expect(() => slots.take(anon('a'), 'bot')).toThrow(GatewayError);
  });

  it('matches a model: per principal and per class, held = taken − freed and never above its cap, over any sequence of takes and frees', () => {
    const holders = [anon('a'), anon('b'), key('c'), key('d', 5)];
    const op = fc.oneof(fc.record({ take: fc.nat(holders.length - 1) }), fc.record({ free: fc.nat(40) }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 60 }), (perPrincipal, perClass, ops) => {
        const slots = new CallSlots({ perPrincipal, perClass });
        const model = new Map<string, number>();
        const classModel = [0, 0];
        const frees: Array<{ holder: (typeof holders)[number]; free: FreeSlot; done: boolean }> = [];
        for (const o of ops) {
          if ('take' in o) {
            const holder = holders[o.take]!;
            const held = model.get(holder.id) ?? 0;
            const cls = holder.verified ? 1 : 0;
            if (held >= (holder.maxCalls ?? perPrincipal) || classModel[cls]! >= perClass) expect(() => slots.take(holder, 'bot')).toThrow(GatewayError);
            else {
              frees.push({ holder, free: slots.take(holder, 'bot'), done: false });
              model.set(holder.id, held + 1);
              classModel[cls]!++;
            }
          } else if (frees.length) {
            const f = frees[o.free % frees.length]!;
            f.free();
            if (!f.done) {
              model.set(f.holder.id, model.get(f.holder.id)! - 1);
              classModel[f.holder.verified ? 1 : 0]!--;
            }
            f.done = true;
          }
          for (const h of holders) expect(slots.heldBy(h.id)).toBe(model.get(h.id) ?? 0);
          expect([slots.heldByClass(false), slots.heldByClass(true)]).toEqual(classModel);
        }
      }),
    );
  });
});

describe('callContext and its slot', () => {
  const entry = { config: { name: 'bot', timeoutMs: 20 } } as unknown as AgentEntry;
  const deps = { log: silentLogger, timeoutMs: 20, conversations: {} as Conversations };

  it('regression "a stream nobody reads holds its slot": the timeout frees the slot even when release never runs', async () => {
    const slots = new CallSlots({ perPrincipal: 1, perClass: UNBOUNDED });
    const handle = callContext(entry, {}, deps, undefined, slots.take(anon('a'), 'bot'));
    expect(slots.heldBy('anon:a')).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(handle.ctx.signal.aborted).toBe(true);
    expect(slots.heldBy('anon:a')).toBe(0);
  });

  it('release frees the slot once, however often it runs', () => {
    const slots = new CallSlots({ perPrincipal: 3, perClass: UNBOUNDED });
    slots.take(anon('a'), 'bot');
    const handle = callContext(entry, {}, deps, undefined, slots.take(anon('a'), 'bot'));
    handle.release();
    handle.release();
    expect(slots.heldBy('anon:a')).toBe(1);
  });
});
