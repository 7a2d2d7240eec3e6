import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

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
    .action(async (spec: string, flags: RemoteCommandFlags) => {
      const { runRegistryAdd } = await import('../actions/registry.js');
      setExit(await runRegistryAdd(spec, flags, output));
    });

  addRemoteOptions(registry.command('list').description('List the imported packages and their components'))
    .addHelpText(
      'after',
      `
Examples:
  $ tributary registry list
  $ tributary registry list --json

Exit codes: 0 ok, 2 server or network error.`,
    )
    .action(async (flags: RemoteCommandFlags) => {
      const { runRegistryList } = await import('../actions/registry.js');
      setExit(await runRegistryList(flags, output));
    });

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
    .action(async (name: string, flags: RemoteCommandFlags) => {
      const { runRegistryRemove } = await import('../actions/registry.js');
      setExit(await runRegistryRemove(name, flags, output));
    });

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
    .action(async (flags: RemoteCommandFlags) => {
      const { runRegistryOutdated } = await import('../actions/registry.js');
      setExit(await runRegistryOutdated(flags, output));
    });

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
    .action(async (name: string | undefined, flags: RemoteCommandFlags) => {
      const { runRegistryUpgrade } = await import('../actions/registry.js');
      setExit(await runRegistryUpgrade(name, flags, output));
    });
}
