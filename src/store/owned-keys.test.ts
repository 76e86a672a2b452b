import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OwnedKeys } from './owned-keys.ts';
import { RecordTable } from './memory-records.ts';

describe('OwnedKeys', () => {
  it('keeps each owner\'s newest keys up to its quota and drops exactly the ones it gives up (property, against a model)', () => {
    const op = fc.oneof(
      fc.record({ add: fc.constantFrom('a', 'b', 'c'), key: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ forget: fc.constantFrom('a', 'b', 'c'), key: fc.integer({ min: 0, max: 6 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const dropped: string[] = [];
        const owned = new OwnedKeys(max, (key) => dropped.push(key));
        const model = new Map<string, string[]>();
        for (const o of ops) {
          if ('add' in o) {
            const key = `${o.add}${o.key}`;
            const mine = (model.get(o.add) ?? []).filter((k) => k !== key);
            mine.push(key);
            const expectDropped = mine.splice(0, Math.max(0, mine.length - max));
            model.set(o.add, mine);
            dropped.length = 0;
            owned.add(o.add, key);
            expect(dropped).toEqual(expectDropped);
          } else {
            const key = `${o.forget}${o.key}`;
            model.set(o.forget, (model.get(o.forget) ?? []).filter((k) => k !== key));
            owned.forget(o.forget, key);
          }
        }
        expect(owned.owners).toBe([...model.values()].filter((keys) => keys.length > 0).length);
      }),
    );
  });
});

describe('RecordTable', () => {
  it('forgets an owner once its records have expired or been deleted: nothing of it is left', () => {
    const table = new RecordTable(100, 10);
    const now = Date.now();
    for (let i = 0; i < 5; i++) table.write('a2a-task', `a2a-task:t${i}`, `t${i}`, 'v', now + 10, `owner${i}`);
    table.write('a2a-task', 'a2a-task:kept', 'kept', 'v', now + 60_000, 'owner0');
    table.delete('a2a-task:kept', 'kept');
    expect(table.sweep(now + 20)).toBe(5);
    expect(table.size).toBe(0);
    expect(table.ownerGroups).toBe(0);
  });

  it('a record rewritten for another owner counts against the new owner only', () => {
    const table = new RecordTable(100, 1);
    const now = Date.now() + 60_000;
    table.write('alias:x', 'alias:x:h', 'h', 'v1', now, 'first');
    table.write('alias:x', 'alias:x:h', 'h', 'v2', now, 'second');
    table.write('alias:x', 'alias:x:other', 'other', 'v', now, 'first');
    expect(table.live('alias:x:h', 'h', Date.now())?.value).toBe('v2');
    expect(table.ownerGroups).toBe(2);
  });
});
