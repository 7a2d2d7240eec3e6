import { countOf } from '@tributary/contracts';
import { rotateKeys, type RotationReport } from '@tributary/engine';
import type { KeysRotateFlags } from '../commands/keys.js';
import { EXIT_OK } from '../exit-codes.js';
import { loadServerConfig } from '../start/server-config.js';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';

/** `keys rotate` on the server's own storage, with the server's settings. */
export async function runKeysRotate(flags: KeysRotateFlags, output: Output): Promise<number> {
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
    `every secret is sealed with master key ${report.activeKeyId}: ${countOf(report.total, 'value')} re-sealed${counts.length > 0 ? ` (${counts.join(', ')})` : ''}`,
  ];
  if (report.retiredKeyIds.length === 0) return lines;
  const retired = report.retiredKeyIds.join(', ');
  const retiredKeys = report.retiredKeyIds.length === 1 ? 'retired key' : 'retired keys';
  switch (report.source.kind) {
    case 'file':
      lines.push(`${retiredKeys} ${retired}: removed from ${report.source.file}`);
      break;
    case 'env':
      lines.push(
        `${retiredKeys} ${retired}: nothing is sealed with them now; keep only the first key in ${report.source.variable} from the next start`,
      );
  }
  return lines;
}
