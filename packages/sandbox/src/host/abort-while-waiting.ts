/**
 * The outcome of work queued behind other work (a handle's earlier calls, a worker's earlier
 * requests), for a caller whose `signal` may abort while it still waits: it then rejects at once
 * with the signal's reason, since what is ahead may hang until its deadline. Once `started()` is
 * true the work's own outcome stands (the work reacts to the signal itself). The listener is
 * removed before the caller hears the outcome, so a settled call leaves none on a long-lived signal.
 */
export function endedIfAbortedWhileWaiting<T>(
  outcome: Promise<T>,
  signal: AbortSignal,
  started: () => boolean,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const unsent = (): void => {
      if (!started()) reject(signal.reason);
    };
    signal.addEventListener('abort', unsent, { once: true });
    outcome.then(
      (value) => {
        signal.removeEventListener('abort', unsent);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', unsent);
        reject(error);
      },
    );
  });
}
