import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';

/**
 * The data directory holds the database, the default master key and submitted code: only the
 * server's user may list it (0700), and only that user may read its files (0600). An existing
 * directory or file that is more open (an older version made them 0755 and 0644) is tightened at
 * start, with a line in the log saying so.
 */
export function makePrivateDir(dir: string, log: (message: string) => void): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700, log);
}

/** Tightens a file to 0600 when it exists and others may read or write it. */
export function tightenFile(file: string, log: (message: string) => void): void {
  if (existsSync(file)) tighten(file, 0o600, log);
}

function tighten(target: string, mode: number, log: (message: string) => void): void {
  const before = statSync(target).mode & 0o777;
  if ((before & 0o077) === 0) return;
  chmodSync(target, mode);
  log(
    `${target} was mode ${before.toString(8).padStart(4, '0')}: now ${mode.toString(8).padStart(4, '0')}, readable by this user only`,
  );
}
