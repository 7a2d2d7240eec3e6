import type { Command } from 'commander';
import type { PropFlags } from '../local/prop-flags.js';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, addRemotePropOptions, type RemoteCommandFlags } from './remote-options.js';

export interface DeployFlags extends RemoteCommandFlags, PropFlags {
  readonly name?: string;
  readonly follow?: boolean;
}

export function registerDeployCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  addRemotePropOptions(
    addRemoteOptions(
      program
        .command('deploy')
        .description('Deploy a source to the server from a local file, a registry key or a URL, then follow its events')
        .argument(
          '[file|key|url]',
          'component file (bundled with its relative imports), published key, or http(s) URL; on a terminal, omit it to pick a published source',
        ),
    ),
  )
    .option('--name <NAME>', 'name of the source (default: the component name)')
    .option('--no-follow', 'exit after deploying instead of following the event stream')
    .addHelpText(
      'after',
      `
On a terminal, props not given with --prop/--props are asked for: defaults offered, options listed
page by page, secrets without echo, app props pick or create a connected account.

Examples:
  $ tributary deploy                        # on a terminal: pick a published source
  $ tributary deploy webhook.mjs
  $ tributary deploy webhook.mjs --prop greeting=hi --no-follow
  $ tributary deploy my-published-source --props '{"timer":{"intervalSeconds":60}}'
  $ tributary deploy https://github.com/me/repo/blob/main/source.mjs --name my-source --json --no-follow

Exit codes: 0 ok, 1 refused (usage, validation, a prop; the message has the code or rule), 2 server or network error.`,
    )
    .action(async (target: string | undefined, flags: DeployFlags) => {
      const { runDeploy } = await import('../actions/deploy.js');
      setExit(await runDeploy(target, flags, output));
    });
}
