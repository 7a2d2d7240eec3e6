/**
 * Property-based fuzzing of the runtime at a small fixed seed (the full run is `npm run fuzz`,
 * docs/fuzzing.md): prop coercion, dedupe, the HTTP event builder, the component validator and the
 * loader. A failure prints the shrunk counterexample.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runTarget } from '../../../tools/fuzz/run-target.mjs';
import { runtimeTargets } from '../../../tools/fuzz/runtime-targets.mjs';

const SEED = 1414;
const { scratch, targets } = runtimeTargets();

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('runtime fuzz targets (small seed)', () => {
  for (const [key, runs] of [
    ['coerce', 150],
    ['dedupe', 150],
    ['httpEvent', 150],
    ['validator', 150],
    ['loader', 25],
  ] as const) {
    it(`${targets[key].name}: ${runs} generated cases, no crash, every invariant holds`, async () => {
      const result = await runTarget(targets[key], { numRuns: runs, seed: SEED });
      expect(result.error, JSON.stringify(result.counterexample)).toBeNull();
      expect(result.failed).toBe(false);
      expect(result.cases).toBe(runs);
    });
  }
});
