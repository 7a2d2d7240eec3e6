import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../store/schema.js';
import { SEALED } from '../sources/configured-props.js';
import { sealedAt } from './sealed-places.js';
import type { SealedAt, SecretBox } from './secret-box.js';

/** Re-seals one sealed value found at `at`, or gives null when it needs nothing. */
type Step = (sealed: string, at: SealedAt) => string | null;

interface SealedColumn {
  readonly table: string;
  /** The primary key's columns: rows are read in their order and updated by them. */
  readonly keys: readonly string[];
  readonly column: string;
  /** `value`: the column is one sealed value; `json`: a JSON document with `{"$sealed": …}` inside. */
  readonly holds: 'value' | 'json';
  /** The stored text with its sealed values re-sealed, or null when none needed it. */
  readonly reseal: (stored: string, key: readonly string[], step: Step) => string | null;
}

const value =
  (place: (row: string) => SealedAt) =>
  (stored: string, key: readonly string[], step: Step): string | null =>
    step(stored, place(key[0] ?? ''));

/** Re-seals the `{"$sealed": …}` values of one props object; null when none changed. */
function resealProps(
  props: Record<string, unknown>,
  place: (prop: string) => SealedAt,
  step: Step,
): Record<string, unknown> | null {
  let changed = false;
  const next = Object.fromEntries(
    Object.entries(props).map(([name, item]) => {
      const sealed =
        item !== null && typeof item === 'object' && SEALED in item ? (item as Record<string, unknown>)[SEALED] : null;
      if (typeof sealed !== 'string') return [name, item];
      const resealed = step(sealed, place(name));
      if (resealed === null) return [name, item];
      changed = true;
      return [name, { [SEALED]: resealed }];
    }),
  );
  return changed ? next : null;
}

/** Every column that holds sealed values (sealed-places.ts names how each is bound). */
const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'accounts', keys: ['id'], column: 'fields_sealed', holds: 'value', reseal: value(sealedAt.account) },
  {
    table: 'oauth_clients',
    keys: ['app'],
    column: 'client_secret_sealed',
    holds: 'value',
    reseal: value(sealedAt.oauthClient),
  },
  {
    table: 'oauth_attempts',
    keys: ['state'],
    column: 'verifier_sealed',
    holds: 'value',
    reseal: value(sealedAt.oauthVerifier),
  },
  {
    table: 'deliveries',
    keys: ['id'],
    column: 'config_sealed',
    holds: 'value',
    reseal: value(sealedAt.deliveryConfig),
  },
  {
    table: 'subscriptions',
    keys: ['id'],
    column: 'secret_sealed',
    holds: 'value',
    reseal: value(sealedAt.subscriptionSecret),
  },
  {
    table: 'instance_secrets',
    keys: ['name'],
    column: 'value_sealed',
    holds: 'value',
    reseal: value(sealedAt.instanceSecret),
  },
  {
    table: 'sources',
    keys: ['id'],
    column: 'configured_props',
    holds: 'json',
    reseal: (stored, [id = ''], step) => {
      const next = resealProps(
        JSON.parse(stored) as Record<string, unknown>,
        (prop) => sealedAt.sourceProp(id, prop),
        step,
      );
      return next === null ? null : JSON.stringify(next);
    },
  },
  {
    table: 'workflow_versions',
    keys: ['workflow_id', 'version'],
    column: 'plan',
    holds: 'json',
    reseal: (stored, [workflowId = ''], step) => {
      let changed = false;
      const steps = (JSON.parse(stored) as { name: string; props: Record<string, unknown> }[]).map((planStep) => {
        const props = resealProps(
          planStep.props,
          (prop) => sealedAt.workflowStepProp(workflowId, planStep.name, prop),
          step,
        );
        if (props === null) return planStep;
        changed = true;
        return { ...planStep, props };
      });
      return changed ? JSON.stringify(steps) : null;
    },
  },
];

/** Which values to re-seal: those of an older format (at every start), or all not under the active key (rotation). */
export type ResealMode = 'legacy' | 'rotate';

export interface ResealReport {
  /** Values re-sealed, per table. */
  readonly resealed: Readonly<Record<string, number>>;
  readonly total: number;
}

const PAGE = 200;

/**
 * Re-seals stored secrets under the active master key, row by row: each row is one UPDATE that
 * applies only if the row still holds what was read (a write in between wins, and is sealed under
 * the active key already). A crash leaves every row either done or as it was, so running it again
 * finishes the job. Passes repeat until one finds nothing to do, so a row added or changed during
 * a pass is not missed.
 */
export async function resealAll(options: {
  readonly db: Kysely<Database>;
  readonly box: SecretBox;
  readonly mode: ResealMode;
}): Promise<ResealReport> {
  const { db, box, mode } = options;
  const resealed: Record<string, number> = {};
  for (let pass = 0; ; pass += 1) {
    const activeId = box.keyring.active().id;
    const step: Step = (sealed, at) => {
      switch (mode) {
        case 'legacy':
          return sealed.startsWith('v1:') ? box.reseal(sealed, at) : null;
        case 'rotate':
          return box.isCurrent(sealed) ? null : box.reseal(sealed, at);
      }
    };
    let changed = 0;
    for (const column of SEALED_COLUMNS) {
      const count = await resealColumn(db, column, step, candidates(column, mode, activeId));
      if (count > 0) resealed[column.table] = (resealed[column.table] ?? 0) + count;
      changed += count;
    }
    if (changed === 0) break;
    if (pass >= 20) throw new Error('re-sealing does not settle: rows keep changing under it');
  }
  return { resealed, total: Object.values(resealed).reduce((sum, count) => sum + count, 0) };
}

/** A cheap filter of rows that may need re-sealing (the step decides). */
function candidates(column: SealedColumn, mode: ResealMode, activeId: string): RawBuilder<unknown> {
  const ref = sql.ref(column.column);
  switch (column.holds) {
    case 'value':
      return mode === 'legacy' ? sql`${ref} LIKE ${'v1:%'}` : sql`${ref} NOT LIKE ${`v2:${activeId}:%`}`;
    case 'json':
      return mode === 'legacy' ? sql`${ref} LIKE ${`%"${SEALED}":"v1:%`}` : sql`${ref} LIKE ${`%"${SEALED}"%`}`;
  }
}

async function resealColumn(
  db: Kysely<Database>,
  column: SealedColumn,
  step: Step,
  filter: RawBuilder<unknown>,
): Promise<number> {
  const keys = sql.join(column.keys.map((key) => sql.ref(key)));
  const table = sql.table(column.table);
  const value = sql.ref(column.column);
  let after: readonly unknown[] | null = null;
  let count = 0;
  for (;;) {
    const page: RawBuilder<unknown> =
      after === null ? sql`` : sql`AND (${keys}) > (${sql.join(after.map((key) => sql`${key}`))})`;
    const { rows }: { rows: Record<string, unknown>[] } = await sql<
      Record<string, unknown>
    >`SELECT ${keys}, ${value} AS sealed_text FROM ${table}
      WHERE ${value} IS NOT NULL AND ${filter} ${page} ORDER BY ${keys} LIMIT ${PAGE}`.execute(db);
    for (const row of rows) {
      const key = column.keys.map((name) => String(row[name]));
      const stored = String(row['sealed_text']);
      const next = column.reseal(stored, key, step);
      if (next === null) continue;
      const where = sql.join(
        column.keys.map((name) => sql`${sql.ref(name)} = ${row[name]}`),
        sql` AND `,
      );
      const result = await sql`UPDATE ${table} SET ${value} = ${next} WHERE ${where} AND ${value} = ${stored}`.execute(
        db,
      );
      count += Number(result.numAffectedRows ?? 0);
    }
    if (rows.length < PAGE) return count;
    const last: Record<string, unknown> = rows.at(-1) ?? {};
    after = column.keys.map((name): unknown => last[name]);
  }
}
