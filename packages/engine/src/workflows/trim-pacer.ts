/**
 * Decides when a workflow's finished runs are trimmed to its `keep_runs`. Trimming after every run
 * read the run index past `keep_runs` rows each time, which cost more than the run itself under
 * load; trimming once every tenth of `keep_runs` (at most every 100 runs) drops the same runs in
 * batches, so at most that many more than `keep_runs` are kept for a moment.
 */
export class TrimPacer {
  private readonly finished = new Map<string, number>();

  /** A run of the workflow ended: whether its runs should be trimmed now. */
  due(workflowId: string, keep: number): boolean {
    const count = (this.finished.get(workflowId) ?? 0) + 1;
    if (count < trimEvery(keep)) {
      this.finished.set(workflowId, count);
      return false;
    }
    this.finished.delete(workflowId);
    return true;
  }
}

/** Finished runs between two trims of a workflow that keeps `keep` runs. */
export function trimEvery(keep: number): number {
  return Math.min(100, Math.max(1, Math.ceil(keep / 10)));
}
