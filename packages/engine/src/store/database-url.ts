/**
 * A PostgreSQL URL as it may be shown in a message or a log: host, port and database, never the
 * user's password. Unparseable text is not echoed either (it may be a password pasted by mistake).
 */
export function describeDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'an unparseable database URL';
  }
  const host = parsed.hostname || 'localhost';
  const port = parsed.port || '5432';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default database)';
  return `${host}:${port}/${database}`;
}

/** True for the URLs that put the store on PostgreSQL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
