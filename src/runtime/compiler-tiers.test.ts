import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { maglevByDefault, optimizingCompilersPaused, pauseOptimizingCompilers, resumeOnTraffic, resumeOptimizingCompilers } from './compiler-tiers.ts';
import type { RequestSource } from './idle-release.ts';

afterEach(() => resumeOptimizingCompilers());

describe('pausing V8\'s optimizing compilers for start-up (issue 23)', () => {
  it('leaves an operator\'s own compiler options alone, wherever they are given', () => {
    for (const flag of ['--no-opt', '--no-turbofan', '--turbofan', '--maglev', '--no-maglev', '--jitless', '--lite-mode', '--opt']) {
      expect(pauseOptimizingCompilers([flag], ''), flag).toBe(false);
      expect(pauseOptimizingCompilers([], `--max-semi-space-size=4 ${flag}`), flag).toBe(false);
    }
    expect(optimizingCompilersPaused()).toBe(false);
  });

  it('options that only look alike (--trace-opt, --optimize-for-size…) do not count as a choice', () => {
    fc.assert(
      fc.property(fc.constantFrom('--trace-opt', '--trace-maglev', '--optimize-for-size', '--max-semi-space-size=4', '--expose-gc'), (flag) => {
        expect(pauseOptimizingCompilers([flag], '', maglevByDefault())).toBe(true);
        resumeOptimizingCompilers();
        expect(optimizingCompilersPaused()).toBe(false);
      }),
      { numRuns: 20 },
    );
  });

  it('knows where Maglev runs by default: V8 13 (Node 24) on x64 and arm64, not Node 22\'s V8 12.4', () => {
    expect(maglevByDefault('x64', '13.6.233.17-node.37')).toBe(true);
    expect(maglevByDefault('arm64', '13.6.233.17-node.37')).toBe(true);
    expect(maglevByDefault('x64', '12.4.254.21-node.24')).toBe(false);
    expect(maglevByDefault('s390x', '13.6.233.17-node.37')).toBe(false);
  });

  it('resumes at the first request that is not a probe or a scrape, once', () => {
    expect(pauseOptimizingCompilers([], '', maglevByDefault())).toBe(true);
    const server = new EventEmitter();
    resumeOnTraffic(server as unknown as RequestSource);
    for (const url of ['/healthz', '/readyz', '/livez', '/metrics', '/metrics?x=1']) server.emit('request', { url });
    expect(optimizingCompilersPaused()).toBe(true);
    server.emit('request', { url: '/ask' });
    expect(optimizingCompilersPaused()).toBe(false);
    expect(server.listenerCount('request')).toBe(0);
  });
});
