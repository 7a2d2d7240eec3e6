/**
 * Callers waiting for a job's next attempt to be recorded (a run's answer showing how its sends
 * went). In-process only: a job another process attempts lets the wait run to its time limit.
 */
export class AttemptWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves once `settle(id)` is called or after `ms`, whichever comes first; never rejects. */
  wait(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(id) ?? new Set();
      this.waiting.set(id, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.waiting.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  settle(id: string): void {
    for (const done of [...(this.waiting.get(id) ?? [])]) done();
  }
}
