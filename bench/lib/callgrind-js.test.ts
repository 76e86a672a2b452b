/**
 * bench/lib/callgrind-js.ts names V8's JIT code in a callgrind dump from the perf map. A wrong figure
 * there would send an optimisation after the wrong function, so its arithmetic is held here on a
 * small dump written by hand in callgrind's format (`--compress-strings=no --dump-instr=no`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callersOf, functionCosts } from './callgrind-js.ts';

const dir = mkdtempSync(join(tmpdir(), 'nlgate-callgrind-js-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Two code objects of `ask` (interpreted and optimised), one of `render`, and a gap at 0x3000.
const MAP = ['1000 100 JS:~ask file:///dist/server.js:1:10', '2000 80 JS:*ask file:///dist/server.js:1:10', '2400 40 JS:*render file:///dist/render.js:3:5', 'not a line'].join('\n');

// `ask` (both objects) runs 100 + 50 itself, calls `render` (30, of which 10 in a builtin) and the
// builtin JSONStringify (5); the optimised `ask` calls the interpreted one (a tier change: not a call of
// another function); an address outside every object is unnamed JIT code.
const DUMP = `# callgrind format
version: 1
events: Ir
fl=???
fn=0x0000000000001010
0 100
cfn=0x0000000000002410
calls=2 0
0 30
cfn=Builtins_JSONStringify
calls=1 0
0 5
fn=0x0000000000002004
0 50
cfn=0x0000000000001000
calls=1 0
0 20
fn=0x0000000000002400
0 20
cfn=Builtins_StringAdd
calls=4 0
0 10
fn=Builtins_StringAdd
0 10
fn=Builtins_JSONStringify
0 5
fn=0x0000000000003000
0 7
totals: 222
`;

writeFileSync(join(dir, 'map'), MAP);
writeFileSync(join(dir, 'dump'), DUMP);
const parsed = functionCosts(join(dir, 'dump'), join(dir, 'map'));

describe('functionCosts', () => {
  const costs = new Map(parsed.map((c) => [c.name, c]));

  it('names JIT code by the perf map and sums one function over its code objects, tier marks dropped', () => {
    const ask = costs.get('ask file:///dist/server.js:1:10')!;
    expect(ask.self).toBe(150);
    // Its own 150, render's 30 and JSONStringify's 5; the call between its two code objects is not counted again.
    expect(ask.inclusive).toBe(185);
    expect([...ask.callees]).toEqual([
      ['render file:///dist/render.js:3:5', 30],
      ['Builtins_JSONStringify', 5],
    ]);
  });

  it('keeps builtins by their own names and leaves unmapped JIT code unnamed', () => {
    expect(costs.get('render file:///dist/render.js:3:5')).toMatchObject({ self: 20, inclusive: 30 });
    expect(costs.get('Builtins_StringAdd')).toMatchObject({ self: 10, inclusive: 10 });
    expect(costs.get('JIT code (unnamed)')).toMatchObject({ self: 7, inclusive: 7 });
  });

  it('counts every instruction of the dump once in some function’s self figure', () => {
    const selfTotal = [...costs.values()].reduce((a, c) => a + c.self, 0);
    expect(selfTotal).toBe(100 + 50 + 20 + 10 + 5 + 7);
  });
});

describe('callersOf', () => {
  it('names the functions that called a builtin, with those calls’ cost, most first', () => {
    expect(callersOf(parsed, ['StringAdd'])).toEqual([{ name: 'render file:///dist/render.js:3:5', cost: 10 }]);
    expect(callersOf(parsed, ['Builtins_'])).toEqual([
      { name: 'render file:///dist/render.js:3:5', cost: 10 },
      { name: 'ask file:///dist/server.js:1:10', cost: 5 },
    ]);
  });

  it('sums the calls to every function a name matches, and leaves out functions that called none', () => {
    // ask calls render (30) and JSONStringify (5): both match one of the two names.
    expect(callersOf(parsed, ['render', 'JSONStringify'])).toEqual([{ name: 'ask file:///dist/server.js:1:10', cost: 35 }]);
    expect(callersOf(parsed, ['no such function'])).toEqual([]);
  });
});
