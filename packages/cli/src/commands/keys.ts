import type { Command } from 'commander';
import type { Output } from '../ui/output.js';

export interface KeysRotateFlags {
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly json?: boolean;
}

/** `keys rotate`: re-seals every stored secret under a new master key, on the server's own storage. */
export function registerKeysCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  const keys = program
    .command('keys')
    .description("The master key that seals the server's stored secrets")
    .addHelpText(
      'after',
      `
Where the key is and how to move it out of the data directory: docs/operations.md#master-key.

Examples:
  $ tributary keys rotate
  $ tributary keys rotate --data-dir /var/lib/tributary --json`,
    );
  keys
    .command('rotate')
    .description('Seal every stored secret under a new master key, then retire the old one')
    .option('--data-dir <DIR>', 'the server data directory (TRIBUTARY_DATA_DIR)', undefined)
    .option('--database-url <URL>', 'the PostgreSQL database the server uses (TRIBUTARY_DATABASE_URL)', undefined)
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      `
Works on the server's storage directly, with the server's settings: the data directory or
TRIBUTARY_DATABASE_URL, and the keys of TRIBUTARY_MASTER_KEY_FILE, TRIBUTARY_MASTER_KEY or
the data directory's master.key.

With one key in a key file, a new key is written first in that file, every secret is re-sealed
under it, and the old key is removed. With TRIBUTARY_MASTER_KEY, give the new key first and
the old one after a comma, restart the servers with both, run this, then drop the old key.
Interrupted, run it again: it finishes the same rotation. Servers may keep running when they
read the same key file. docs/operations.md#master-key explains it.

Examples:
  $ tributary keys rotate
  $ tributary keys rotate --data-dir /var/lib/tributary
  $ TRIBUTARY_MASTER_KEY_FILE=/etc/tributary/master.key tributary keys rotate --json

Exit codes: 0 rotated, 2 refused (the message says why) or failed.`,
    )
    .action(async (flags: KeysRotateFlags) => {
      const { runKeysRotate } = await import('../actions/keys.js');
      setExit(await runKeysRotate(flags, output));
    });
}
