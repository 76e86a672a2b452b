/**
 * `npx tsx bench/hot-keys.ts` (issue 25): what a read's touch costs in a memory-store class of
 * 50,000 entries when a few keys are read again and again (a 2025 MCP session's record, a
 * conversation read and then written), against a plain Map touched by `delete` and `set`. V8
 * leaves a deleted Map entry in its bucket's chain until the table is rebuilt, so that plain touch
 * of a hot key grows its own chain; RetainedMap leaves a recently moved entry in place
 * (src/store/memory-retention.ts). Not part of `npm test`; nothing asserts a timing.
 */
import { RetainedMap } from '../src/store/memory-retention.ts';

const SIZE = Number(process.env.HOT_SIZE ?? 50_000);
const N = Number(process.env.HOT_N ?? 200_000);
/** Keys spread over the hot set the way interleaved clients read them (7919 is prime). */
const hotKey = (i: number, hot: number) => `rec:key-${(i * 7919) % hot}`;

function plainMap(hot: number): number {
  const map = new Map<string, { expiresAt: number }>();
  for (let i = 0; i < SIZE; i++) map.set(`rec:key-${i}`, { expiresAt: Infinity });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const key = hotKey(i, hot);
    const entry = map.get(key)!;
    map.delete(key);
    map.set(key, entry);
  }
  return Number(process.hrtime.bigint() - t0) / N;
}

function retained(hot: number): number {
  const map = new RetainedMap<{ expiresAt: number; moved?: number }>(SIZE + 1);
  for (let i = 0; i < SIZE; i++) map.keep(`rec:key-${i}`, false, { expiresAt: Infinity });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const key = hotKey(i, hot);
    map.keep(key, false, map.live(key, false, 0)!);
  }
  return Number(process.hrtime.bigint() - t0) / N;
}

console.log(`ns per touch, ${N} touches in a class of ${SIZE}\n\n| hot keys | Map delete + set | RetainedMap.keep |\n|---|---|---|`);
for (const hot of [1, 3, 100, 1000]) console.log(`| ${hot} | ${plainMap(hot).toFixed(0)} | ${retained(hot).toFixed(0)} |`);
