import { MASTER_KEY_FILE_VARIABLE, MASTER_KEY_VARIABLE, rotateKeys, type RotationReport } from '@tributary/engine';
import type { Command } from 'commander';
import { EXIT_OK } from '../exit-codes.js';
import { loadServerConfig } from '../start/server-config.js';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';

interface KeysRotateFlags {
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
TRIBUTARY_DATABASE_URL, and the keys of ${MASTER_KEY_FILE_VARIABLE}, ${MASTER_KEY_VARIABLE} or
the data directory's master.key.

With one key in a key file, a new key is written first in that file, every secret is re-sealed
under it, and the old key is removed. With ${MASTER_KEY_VARIABLE}, give the new key first and
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
      setExit(await runKeysRotate(flags, output));
    });
}

async function runKeysRotate(flags: KeysRotateFlags, output: Output): Promise<number> {
  try {
    const config = loadServerConfig(
      {
        ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
        ...(flags.databaseUrl !== undefined ? { databaseUrl: flags.databaseUrl } : {}),
      },
      process.env,
    );
    const report = await rotateKeys({
      dataDir: config.dataDir,
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      env: process.env,
      log: (message) => output.err(message),
    });
    if (flags.json) output.json({ ok: true, ...toJson(report) });
    else for (const line of describe(report)) output.out(line);
    return EXIT_OK;
  } catch (error) {
    return reportFailure(output, error, { json: flags.json === true });
  }
}

function toJson(report: RotationReport): Record<string, unknown> {
  return {
    active_key_id: report.activeKeyId,
    retired_key_ids: report.retiredKeyIds,
    started: report.started,
    resealed: report.resealed,
    total: report.total,
    key_source: report.source.kind === 'env' ? report.source.variable : report.source.file,
  };
}

function describe(report: RotationReport): string[] {
  const counts = Object.entries(report.resealed).map(([table, count]) => `${table} ${count}`);
  const lines = [
    `every secret is sealed with master key ${report.activeKeyId}: ${report.total} value(s) re-sealed${counts.length > 0 ? ` (${counts.join(', ')})` : ''}`,
  ];
  if (report.retiredKeyIds.length === 0) return lines;
  const retired = report.retiredKeyIds.join(', ');
  switch (report.source.kind) {
    case 'file':
      lines.push(`retired key(s) ${retired}: removed from ${report.source.file}`);
      break;
    case 'env':
      lines.push(
        `retired key(s) ${retired}: nothing is sealed with them now; keep only the first key in ${report.source.variable} from the next start`,
      );
  }
  return lines;
}
