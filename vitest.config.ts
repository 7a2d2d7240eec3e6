import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@tributary/source'] },
  ssr: { resolve: { conditions: ['@tributary/source'], externalConditions: ['@tributary/source'] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'fixtures/**/*.test.ts',
      'docs/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
    ],
    // Tests' components call test servers on loopback, which the sandbox's egress policy refuses by
    // default; packages/sandbox/test/egress.test.ts tests that default with a policy of its own.
    env: { TRIBUTARY_EGRESS_ALLOW: '127.0.0.0/8,::1' },
    // Two test files at a time. Vitest's default on two cores is one (cores - 1), which leaves a core
    // idle while a file waits on the processes, servers and browsers it starts: 29.5 minutes of
    // vitest against 20 on the same host (2026-11-29, 1,795 tests, all passing both ways).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for a state the browser or a server reaches when it gets the CPU; on two
    // shared cores that can take seconds, so its 1 s default made slow runs fail, not wrong ones.
    // As long as Playwright's own default wait in the browser tests.
    expect: { poll: { timeout: 20_000 } },
    reporters: ['default', 'json', './tools/summary-reporter.ts'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
