/**
 * The stop switch of one run in flight (InvocationRunner.stopRuns). Its AbortSignal is made only
 * when asked for: a source's run hands one to its worker call, a workflow run never reads it, and
 * an AbortController per workflow run cost about 1.5 % of the server's main thread under load.
 */
export class Stopper {
  private controller: AbortController | null = null;
  private stopped: { readonly reason: unknown } | null = null;

  get aborted(): boolean {
    return this.stopped !== null;
  }

  get reason(): unknown {
    return this.stopped?.reason;
  }

  /** A signal that is aborted, with the same reason, once the run is stopped (or already is). */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.stopped && !this.controller.signal.aborted) this.controller.abort(this.stopped.reason);
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.stopped) return;
    this.stopped = { reason };
    this.controller?.abort(reason);
  }
}
