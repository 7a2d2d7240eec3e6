import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

export function registerPublishCommands(program: Command, output: Output, setExit: (code: number) => void): void {
  addRemoteOptions(
    program
      .command('publish')
      .description('Publish a component to the registry under its key (a new version, or the same code again)')
      .argument('<file|url>', 'component file (bundled with its relative imports) or URL'),
  )
    .addHelpText(
      'after',
      `
The component needs a key and a semver version (rules C5, C6). Publishing other code under a
version already published is refused (rule C7): bump the version. Deploy a published component
with: tributary deploy KEY

Examples:
  $ tributary publish my-action.mjs
  $ tributary publish my-source.mjs --json

Exit codes: 0 ok, 1 refused (validation or rule, e.g. C7 VERSION_CONFLICT), 2 server or network error.`,
    )
    .action(async (target: string, flags: RemoteCommandFlags) => {
      const { runPublish } = await import('../actions/publish.js');
      setExit(await runPublish(target, flags, output));
    });

  addRemoteOptions(
    program
      .command('unpublish')
      .description('Remove a published component from the registry')
      .argument('<key>', 'registry key')
      .argument('[key-after-component]', 'the key, in the pd form `unpublish component KEY`'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary unpublish my-action
  $ tributary unpublish component my-action

Exit codes: 0 ok, 1 unknown key or usage, 2 server or network error.`,
    )
    .action(async (first: string, second: string | undefined, flags: RemoteCommandFlags) => {
      const { runUnpublish } = await import('../actions/publish.js');
      setExit(await runUnpublish(first, second, flags, output));
    });
}
