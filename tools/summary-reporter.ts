import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one closing line, `tests: N passed, N failed, N skipped`, after every run: the plain form
 * that CI reads whatever the test runner, next to vitest's own summary.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        switch (test.result().state) {
          case 'passed':
            passed += 1;
            break;
          case 'failed':
            failed += 1;
            break;
          case 'skipped':
          case 'pending':
            skipped += 1;
            break;
        }
      }
      if (module.state() === 'failed' && module.children.size === 0) failed += 1;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
