import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Suites that spawn redis-server or gateway processes need room on a 2-core CI machine.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/fast-check-setup.ts'],
    projects: [
      {
        extends: true,
        // Unit tests beside the code start no process and share no state between files, so their
        // files share forks and the modules those load (`isolate: false`): a fresh fork and a fresh
        // import graph per file was three quarters of their time (130 s against 40 s, measured).
        test: { name: 'unit', include: ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts'], isolate: false },
      },
      // Suites under test/ start servers, Redis and processes and set process-wide state (tracing,
      // environment): each file keeps a fork of its own.
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'] } },
    ],
  },
});
