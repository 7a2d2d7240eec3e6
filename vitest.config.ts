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
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json', './tools/summary-reporter.ts'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
