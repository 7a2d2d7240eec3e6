/**
 * Tells worker processes that a source has queued work, so one of them claims it at once rather
 * than at its next rescan. The queue (`InvocationQueue`) stays the record of the work: a wake-up
 * carries only source ids, and losing one delays work until the next rescan, never loses it.
 *
 * Guarantees every implementation keeps (test/contracts/work-dispatch.contract.ts checks them):
 * - A wake-up announced by any process reaches one listening process (not each of them), and
 *   waits for one if none listens yet.
 * - A wake-up with a delay arrives no sooner than the delay (a retry after its backoff).
 * - `announce` never throws and never blocks its caller: a failure is logged, the rescan remains.
 */
export interface WorkDispatch {
  /** Work was queued durably for these sources (now, or due after `delayMs`). */
  announce(sourceIds: readonly string[], delayMs?: number): void;
  /** Starts taking wake-ups in this process; `onWork` gets the sources to claim. */
  listen(onWork: (sourceIds: readonly string[]) => void): Promise<void>;
  /** Stops listening and sends what is still buffered. */
  close(): Promise<void>;
}
