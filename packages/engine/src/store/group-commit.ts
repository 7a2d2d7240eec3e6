import type SqliteDatabase from 'better-sqlite3';

interface Pending {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/** Thrown inside the shared transaction to roll it back when one write of the group threw. */
const ONE_THREW = Symbol('one write of the group threw');

/**
 * Writes asked for in the same turn of the event loop, or the next, commit together in one SQLite
 * transaction (a group commit): under load, one commit serves the checkpoints of many runs. A write that throws
 * is rolled back alone and only its caller sees the error; every caller's promise settles after
 * the commit, so a resolved write is durable.
 *
 * A group first runs with no savepoints (a SAVEPOINT, a RELEASE and a new better-sqlite3 wrapper
 * per write took nearly half of the groups' time in a profile of workflow runs); if one write
 * throws, the whole transaction is rolled back and the group runs again with a savepoint per
 * write, as it always did. So a write may run twice, its first run rolled back: `work` must change
 * nothing but the database.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  /** Every write of the group in the one transaction; throws ONE_THREW (rolled back) if one threw. */
  private readonly together: (group: readonly Pending[]) => Outcome[];
  /** Each write of the group in a savepoint of its own inside the one transaction. */
  private readonly apart: (group: readonly Pending[]) => Outcome[];

  constructor(private readonly raw: SqliteDatabase.Database) {
    this.together = raw.transaction((group: readonly Pending[]) =>
      group.map((item): Outcome => {
        try {
          return { ok: true, value: item.work() };
        } catch {
          throw ONE_THREW;
        }
      }),
    );
    // Inside a transaction, better-sqlite3 runs a nested one as a savepoint; one wrapper serves
    // every write (`transaction()` builds four wrappers per call).
    const inSavepoint = raw.transaction((work: () => unknown) => work());
    this.apart = raw.transaction((group: readonly Pending[]) =>
      group.map((item): Outcome => {
        try {
          return { ok: true, value: inSavepoint(item.work) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // The commit waits for the end of the next turn of the event loop, not this one: the worker
      // results and HTTP requests that turn reads join the group, which makes fewer, larger commits
      // (each page a commit touches is written to the log once per commit). Measured under the
      // workflow benchmark: 3-7 % more runs a second for one turn more of latency per write
      // (decision 0014, addendum 16).
      if (this.pending.length === 1) setImmediate(() => setImmediate(() => this.flush()));
    });
  }

  private flush(): void {
    const group = this.pending;
    this.pending = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.commit(group);
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

  private commit(group: readonly Pending[]): Outcome[] {
    try {
      return this.together(group);
    } catch (error) {
      // A failure of the transaction itself (BEGIN, COMMIT) fails the whole group, as before.
      if (error !== ONE_THREW) throw error;
    }
    return this.apart(group);
  }
}
