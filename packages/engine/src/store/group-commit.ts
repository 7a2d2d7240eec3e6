import type SqliteDatabase from 'better-sqlite3';

interface Pending {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes asked for in the same turn of the event loop commit together in one SQLite transaction (a
 * group commit): under load, one commit serves the checkpoints of many runs. Each write runs in a
 * savepoint of its own, so one that throws is rolled back alone and only its caller sees the
 * error; every caller's promise settles after the commit, so a resolved write is durable.
 */
export class GroupCommit {
  private pending: Pending[] = [];

  constructor(private readonly raw: SqliteDatabase.Database) {}

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const group = this.pending;
    this.pending = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.raw.transaction(() => {
        for (const item of group) {
          try {
            // Inside a transaction, better-sqlite3 runs a nested one as a savepoint.
            outcomes.push({ ok: true, value: this.raw.transaction(item.work)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      for (const item of group) item.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    for (const [index, item] of group.entries()) {
      const outcome = outcomes[index];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error instanceof Error ? outcome.error : new Error(String(outcome?.error)));
    }
  }
}
