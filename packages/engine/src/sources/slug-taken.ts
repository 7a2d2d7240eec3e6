/**
 * Whether a write failed because another source took its `name_slug` between the check and the
 * insert (two deploys of one name at once): PostgreSQL's unique violation on
 * `sources_name_slug_key`, or SQLite's on `sources.name_slug`.
 */
export function isSlugTaken(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return constraint === 'sources_name_slug_key';
  return typeof message === 'string' && message.includes('UNIQUE constraint failed: sources.name_slug');
}
