import { countOf } from '@tributary/contracts';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { followImport, printReports } from '../remote/follow-import.js';
import { REMOTE_EXIT_OK } from '../remote/remote-exit.js';
import type { Output } from '../ui/output.js';
import { formatTable } from '../ui/table.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import { runRemote } from './remote-command.js';

export async function runRegistryAdd(spec: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const started = await client.call(client.api.POST('/v1/registry/packages', { body: { spec: localPath(spec) } }));
    const job = await followImport(client, started.data, output, flags.json === true);
    return printReports(job.reports, output, flags.json === true);
  });
}

export async function runRegistryList(flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const packages = (await client.call(client.api.GET('/v1/registry/packages'))).data;
    if (flags.json) return output.json(packages);
    if (packages.length === 0)
      return output.out('No packages in the registry. Add one: tributary registry add <npm-spec>');
    for (const entry of packages) {
      const skipped = entry.skipped.length > 0 ? `, ${entry.skipped.length} skipped` : '';
      output.out(`${entry.name}@${entry.version} (${countOf(entry.components.length, 'component')}${skipped})`);
      const rows = entry.components.map((component) => [
        `  ${component.key}`,
        component.version,
        component.component_type,
        component.name ?? '',
      ]);
      for (const line of formatTable(['  KEY', 'VERSION', 'TYPE', 'NAME'], rows)) output.out(line);
    }
  });
}

export async function runRegistryRemove(name: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const removed = await client.call(
      client.api.DELETE('/v1/registry/packages/{name}', { params: { path: { name } } }),
    );
    if (flags.json) return output.json({ ok: true, ...removed.data });
    output.out(`Removed ${name}: ${countOf(removed.data.removed.length, 'component')} left the registry`);
  });
}

export async function runRegistryOutdated(flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const rows = (await client.call(client.api.GET('/v1/registry/outdated'))).data;
    if (flags.json) return output.json(rows);
    if (rows.length === 0) return output.out('No packages in the registry.');
    const table = rows.map((row) => [
      row.name,
      row.current,
      row.latest ?? '(local file)',
      row.outdated ? 'outdated' : 'up to date',
    ]);
    for (const line of formatTable(['PACKAGE', 'CURRENT', 'LATEST', 'STATE'], table)) output.out(line);
    return REMOTE_EXIT_OK;
  });
}

export async function runRegistryUpgrade(
  name: string | undefined,
  flags: RemoteCommandFlags,
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const started = await client.call(client.api.POST('/v1/registry/upgrade', { body: name ? { name } : {} }));
    const job = await followImport(client, started.data, output, flags.json === true);
    return printReports(job.reports, output, flags.json === true);
  });
}

/**
 * A tarball given by a path relative to here means this folder; the server resolves specs from its
 * own working directory, so an existing local file is sent as an absolute path.
 */
function localPath(spec: string): string {
  return /^\.{0,2}\/|\.tgz$/.test(spec) && existsSync(spec) ? path.resolve(spec) : spec;
}
