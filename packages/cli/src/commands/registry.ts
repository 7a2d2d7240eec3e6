import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { followImport, printReports } from '../remote/follow-import.js';
import { REMOTE_EXIT_OK } from '../remote/remote-exit.js';
import type { Output } from '../ui/output.js';
import { formatTable } from '../ui/table.js';
import { addRemoteOptions, runRemote, type RemoteCommandFlags } from './remote-command.js';

const IMPORT_EXIT =
  'Exit codes: 0 every component published or unchanged, 1 a component was skipped or the import was refused (no such package, no components), 2 server or network error.';

/** `registry add|list|remove|outdated|upgrade`: npm packages of components in a server's registry. */
export function registerRegistryCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  const registry = program
    .command('registry')
    .description('npm packages of components in the server registry: add, list, remove, outdated, upgrade')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary registry add @pipedream/helper_functions@0.3.13
  $ tributary registry list
  $ tributary registry outdated
  $ tributary registry upgrade
  $ tributary registry remove @pipedream/helper_functions

See docs/registry.md.`,
    );

  addRemoteOptions(
    registry
      .command('add')
      .description('Import an npm package of components: validate each and publish it under its key')
      .argument('<spec>', 'npm spec: name, name@version, name@range, or a .tgz path on the server'),
  )
    .addHelpText(
      'after',
      `
Progress lines go to stderr while it works; the report (published, unchanged, skipped with the rule
or error of each) to stdout.

Examples:
  $ tributary registry add @pipedream/helper_functions@0.3.13
  $ tributary registry add @pipedream/postgresql --json

${IMPORT_EXIT}`,
    )
    .action(async (spec: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const started = await client.call(
            client.api.POST('/v1/registry/packages', { body: { spec: localPath(spec) } }),
          );
          const job = await followImport(client, started.data, output, flags.json === true);
          return printReports(job.reports, output, flags.json === true);
        }),
      ),
    );

  addRemoteOptions(registry.command('list').description('List the imported packages and their components'))
    .addHelpText(
      'after',
      `
Examples:
  $ tributary registry list
  $ tributary registry list --json

Exit codes: 0 ok, 2 server or network error.`,
    )
    .action(async (flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const packages = (await client.call(client.api.GET('/v1/registry/packages'))).data;
          if (flags.json) return output.json(packages);
          if (packages.length === 0)
            return output.out('No packages in the registry. Add one: tributary registry add <npm-spec>');
          for (const entry of packages) {
            const skipped = entry.skipped.length > 0 ? `, ${entry.skipped.length} skipped` : '';
            output.out(`${entry.name}@${entry.version} (${entry.components.length} component(s)${skipped})`);
            const rows = entry.components.map((component) => [
              `  ${component.key}`,
              component.version,
              component.component_type,
              component.name ?? '',
            ]);
            for (const line of formatTable(['  KEY', 'VERSION', 'TYPE', 'NAME'], rows)) output.out(line);
          }
        }),
      ),
    );

  addRemoteOptions(
    registry
      .command('remove')
      .description('Take a package and its components out of the registry (deployed sources keep running)')
      .argument('<name>', 'package name, e.g. @pipedream/helper_functions'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary registry remove @pipedream/helper_functions

Exit codes: 0 removed, 1 no such package, 2 server or network error.`,
    )
    .action(async (name: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const removed = await client.call(
            client.api.DELETE('/v1/registry/packages/{name}', { params: { path: { name } } }),
          );
          if (flags.json) return output.json({ ok: true, ...removed.data });
          output.out(`Removed ${name}: ${removed.data.removed.length} component(s) left the registry`);
        }),
      ),
    );

  addRemoteOptions(
    registry.command('outdated').description('Compare each imported package with the newest version on npm'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary registry outdated

Exit codes: 0 ok (outdated or not), 2 server or network error.`,
    )
    .action(async (flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
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
        }),
      ),
    );

  addRemoteOptions(
    registry
      .command('upgrade')
      .description(
        'Import the newest version of each outdated package (or of one); deployed sources keep their version',
      )
      .argument('[name]', 'only this package'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary registry upgrade
  $ tributary registry upgrade @pipedream/helper_functions

${IMPORT_EXIT}`,
    )
    .action(async (name: string | undefined, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const started = await client.call(client.api.POST('/v1/registry/upgrade', { body: name ? { name } : {} }));
          const job = await followImport(client, started.data, output, flags.json === true);
          return printReports(job.reports, output, flags.json === true);
        }),
      ),
    );
}

/**
 * A tarball given by a path relative to here means this folder; the server resolves specs from its
 * own working directory, so an existing local file is sent as an absolute path.
 */
function localPath(spec: string): string {
  return /^\.{0,2}\/|\.tgz$/.test(spec) && existsSync(spec) ? path.resolve(spec) : spec;
}
