import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'examples/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    // Suites that spawn redis-server or gateway processes need room on a 2-core CI machine.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/fast-check-setup.ts'],
  },
});
