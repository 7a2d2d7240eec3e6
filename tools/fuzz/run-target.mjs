// Runs one fuzz target's property with fast-check and reports, instead of throwing, what it found:
// the number of cases, the first failing case (shrunk) and its error. Progress is reported every
// `progressEvery` cases so a long run shows it is alive.
import fc from 'fast-check';

/**
 * @param {{ name: string, property: (count: () => void) => import('fast-check').IRawProperty<unknown> }} target
 * @param {{ numRuns: number, seed: number, onProgress?: (name: string, done: number, total: number) => void, progressEvery?: number }} options
 */
export async function runTarget(target, options) {
  let done = 0;
  const every = options.progressEvery ?? Math.max(1, Math.floor(options.numRuns / 10));
  const count = () => {
    done += 1;
    if (options.onProgress && done % every === 0) options.onProgress(target.name, done, options.numRuns);
  };
  const started = Date.now();
  const details = await fc.check(target.property(count), {
    numRuns: options.numRuns,
    seed: options.seed,
    endOnFailure: false,
    // The REST target waits on a server: no per-case timeout, the server's own limits apply.
    interruptAfterTimeLimit: undefined,
  });
  return {
    name: target.name,
    cases: details.numRuns,
    executions: done,
    failed: details.failed,
    seed: options.seed,
    ms: Date.now() - started,
    counterexample: details.failed ? safeJson(details.counterexample) : null,
    error: details.failed ? String(details.errorInstance?.stack ?? details.errorInstance ?? 'failed') : null,
  };
}

/** JSON of a counterexample for the report (values JSON cannot hold are named). */
function safeJson(value) {
  try {
    return JSON.parse(
      JSON.stringify(value, (_key, item) =>
        typeof item === 'function' || typeof item === 'symbol' || typeof item === 'bigint' || item === undefined
          ? `[${typeof item}]`
          : item,
      ),
    );
  } catch {
    return String(value);
  }
}
