import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundleConsole } from './bundle.ts';

/** The esbuild service processes this process has as children (Linux /proc). */
function esbuildChildren(): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--service=')) n++;
    } catch {
      // The process ended while it was being read.
    }
  }
  return n;
}

describe('bundleConsole', () => {
  it('builds the console and leaves no esbuild service process behind (it held 18 MiB for the gateway’s life)', async () => {
    const before = esbuildChildren();
    const assets = await bundleConsole();
    expect(assets.js.length).toBeGreaterThan(1000);
    expect(assets.css.length).toBeGreaterThan(100);
    expect(esbuildChildren()).toBeLessThanOrEqual(before);
    // Stopped, not broken: a second build starts the service again.
    expect((await bundleConsole()).js).toBe(assets.js);
    expect(esbuildChildren()).toBeLessThanOrEqual(before);
  });
});
