import type { Database } from '../store/schema.js';

/** What a run reads of an account: its credentials stay sealed here, as in the store. */
export type CachedAccount = Pick<
  Database['accounts'],
  'id' | 'app' | 'name' | 'fields_sealed' | 'status' | 'status_message' | 'oauth_expires_at'
>;

/** How an app of the catalog runs without an account: `none` and `unknown` do, `account` does not. */
export type AppAuthMode = 'none' | 'unknown' | 'account';

/**
 * What every invocation would otherwise read from the store: the accounts its app props point at
 * and how the catalog says their apps authenticate. Entries stay until the code that changes them
 * says so (`accountChanged` after every write of an account, `catalogChanged` after every write of
 * the catalog), so a run never sees an account or an app as it was before a write that finished.
 *
 * Only for a store that one process owns (SQLite): with several processes on PostgreSQL a write in
 * another process would not reach this one, so there the engine makes none and every run reads.
 */
export class AccountCache {
  private readonly accounts = new Map<string, CachedAccount | null>();
  private readonly appModes = new Map<string, AppAuthMode>();
  /**
   * Counts writes. A read that started before a write may finish after it: what it read is then
   * kept only if no write happened meanwhile, so a stale row never outlives its invalidation.
   */
  private generation = 0;

  /** The cached account (`null`: known not to exist), or `undefined` when it is to be read. */
  account(id: string): CachedAccount | null | undefined {
    return this.accounts.get(id);
  }

  /** The generation to pass to `keepAccounts` along with what a read started now returns. */
  mark(): number {
    return this.generation;
  }

  /** Keeps rows read for `ids` (ids without a row are kept as absent), unless a write came between. */
  keepAccounts(generation: number, ids: readonly string[], rows: readonly CachedAccount[]): void {
    if (generation !== this.generation) return;
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const id of ids) this.accounts.set(id, byId.get(id) ?? null);
  }

  appMode(slug: string): AppAuthMode | undefined {
    return this.appModes.get(slug);
  }

  keepAppMode(generation: number, slug: string, mode: AppAuthMode): void {
    if (generation === this.generation) this.appModes.set(slug, mode);
  }

  /** An account was created, changed (tokens, status) or deleted. */
  accountChanged(id: string): void {
    this.generation += 1;
    this.accounts.delete(id);
  }

  /** An app of the catalog was added or replaced. */
  catalogChanged(): void {
    this.generation += 1;
    this.appModes.clear();
  }
}
