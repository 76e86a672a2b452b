import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'examples/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    // Suites that spawn redis-server or gateway processes need room on a 2-core CI machine.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default (one less than the cores) runs one file at a time on a 2-core CI machine,
    // where most suites wait on processes and sockets: two at a time took the suite from 735 s to
    // 415 s there, every test passing (docs/testing.md "CI and Node versions").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/fast-check-setup.ts'],
  },
});
