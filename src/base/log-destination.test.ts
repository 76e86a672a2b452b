import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { logDestination, type LogDestination } from './log-destination.ts';

const dir = mkdtempSync(join(tmpdir(), 'nlgate-logdest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A destination on a fresh file, counting the writes SonicBoom makes (each one a thread-pool trip). */
function onFile(opts: { holdMs?: number; holdBytes?: number } = {}): { out: LogDestination; path: string; writes: () => number } {
  const path = join(dir, `log-${files++}`);
  const out = logDestination({ dest: path, ...opts });
  let writes = 0;
  out.on('write', (n: number) => void (n > 0 && writes++));
  return { out, path, writes: () => writes };
}

const ready = (out: LogDestination) => new Promise<void>((resolve) => out.once('ready', () => resolve()));
const text = (path: string) => readFileSync(path, 'utf8');

describe('logDestination', () => {
  it('writes the lines of one burst in one write, after holding them at most holdMs', async () => {
    const { out, path, writes } = onFile({ holdMs: 30 });
    await ready(out);
    for (let i = 0; i < 50; i++) out.write(`{"line":${i}}\n`);
    expect(text(path)).toBe('');
    await sleep(150);
    expect(text(path)).toBe(Array.from({ length: 50 }, (_, i) => `{"line":${i}}\n`).join(''));
    expect(writes()).toBe(1);
    out.end();
  });

  // Regression (issue 25): SonicBoom held the lines itself, appending each to one string and
  // measuring that string's UTF-8 length on every write, which flattened it: a copy of everything
  // held, per line. The held lines now reach it as one string per batch.
  it('regression: a burst of lines reaches SonicBoom as one string, not a line at a time', async () => {
    // What logDestination hands the SonicBoom it makes: its write, seen before logDestination wraps it.
    const real = pino.destination;
    const handed: string[] = [];
    pino.destination = ((o: Parameters<typeof real>[0]) => {
      const d = real(o);
      const write = d.write.bind(d);
      d.write = (s: string) => {
        handed.push(s);
        return write(s);
      };
      return d;
    }) as typeof real;
    try {
      const { out, path } = onFile({ holdMs: 30 });
      await ready(out);
      const lines = Array.from({ length: 50 }, (_, i) => `{"line":${i}}\n`);
      for (const line of lines) out.write(line);
      await sleep(150);
      expect(handed).toEqual([lines.join('')]);
      expect(text(path)).toBe(lines.join(''));
      out.end();
    } finally {
      pino.destination = real;
    }
  });

  it('writes at once when holdBytes are pending, without waiting for the timer', async () => {
    const { out, path } = onFile({ holdMs: 60_000, holdBytes: 1024 });
    await ready(out);
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 11; i++) out.write(line);
    await sleep(100);
    expect(text(path).length).toBeGreaterThanOrEqual(1024);
    out.end();
  });

  it('writes a lone line even while idle, and arms no timer once nothing is pending', async () => {
    const { out, path, writes } = onFile({ holdMs: 10 });
    await ready(out);
    out.write('one\n');
    await sleep(80);
    expect(text(path)).toBe('one\n');
    await sleep(80);
    // No empty writes after the line, however long it stays idle.
    expect(writes()).toBe(1);
    out.end();
  });

  it('writes a line that came while a write was in flight, once that write ends (the timer found it busy)', async () => {
    const { out, path } = onFile({ holdMs: 0, holdBytes: 1024 });
    await ready(out);
    // Ten megabytes go out at once (past holdBytes) and stay in flight past the timer's turn.
    const big = `${'y'.repeat(10 * 1024 * 1024)}\n`;
    out.write(big);
    out.write('tail\n');
    for (let i = 0; i < 100 && !text(path).endsWith('tail\n'); i++) await sleep(20);
    expect(text(path).length).toBe(big.length + 5);
    expect(text(path).endsWith('tail\n')).toBe(true);
    out.end();
  });

  it('holds at most maxBytes: lines past it are dropped, and lines after the reader catches up are written again', async () => {
    const path = join(dir, `log-${files++}`);
    const out = logDestination({ dest: path, maxBytes: 64 * 1024 });
    let dropped = 0;
    out.on('drop', () => void dropped++);
    await ready(out);
    // A megabyte in one turn of the loop: nothing can be written meanwhile, so the bound decides.
    const line = `${'z'.repeat(1023)}\n`;
    for (let i = 0; i < 1024; i++) out.write(line);
    expect(dropped).toBeGreaterThan(900);
    await sleep(100);
    out.write('after\n');
    for (let i = 0; i < 50 && !text(path).endsWith('after\n'); i++) await sleep(10);
    expect(text(path).length).toBeLessThanOrEqual(64 * 1024 + line.length + 'after\n'.length);
    expect(text(path).endsWith('after\n')).toBe(true);
    out.end();
  });

  it('keeps every line, in order, whatever the bursts and pauses (lines written while a write is in flight too)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.array(fc.string({ maxLength: 300 }), { maxLength: 40 }), fc.integer({ min: 0, max: 15 })), { minLength: 1, maxLength: 6 }), async (bursts) => {
        const { out, path } = onFile({ holdMs: 5, holdBytes: 2048 });
        await ready(out);
        const expected: string[] = [];
        for (const [lines, pauseMs] of bursts) {
          for (const l of lines) {
            const line = `${JSON.stringify(l)}\n`;
            expected.push(line);
            out.write(line);
          }
          await sleep(pauseMs);
        }
        for (let i = 0; i < 100 && text(path) !== expected.join(''); i++) await sleep(10);
        expect(text(path)).toBe(expected.join(''));
        out.end();
      }),
      { numRuns: 25 },
    );
  });

  it('writes held lines at exit, as pino writes any pending line (a crash loses none of its last lines)', () => {
    const entry = fileURLToPath(new URL('./log-destination.ts', import.meta.url));
    const script = `
      const { logDestination } = await import(${JSON.stringify(entry)});
      const { pino } = await import('pino');
      const log = pino({}, logDestination({ holdMs: 60_000 }));
      log.info('before the crash');
      setImmediate(() => { throw new Error('boom'); });`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: process.cwd() });
    expect(child.status).not.toBe(0);
    expect(child.stdout).toContain('"msg":"before the crash"');
  });
});
