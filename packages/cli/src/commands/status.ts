import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

/** `status`: how a server is doing, from `GET /v1/status`. */
export function registerStatusCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  addRemoteOptions(
    program
      .command('status')
      .description('How the server is doing: version, uptime, readiness, queue depth, sandbox pool, recent failures'),
  )
    .addHelpText(
      'after',
      `
Each recent failure links to its source in the web app. docs/operations.md explains readiness.

Examples:
  $ tributary status
  $ tributary status --json

Exit codes: 0 ok (ready or not: the text says), 2 server or network error.`,
    )
    .action(async (flags: RemoteCommandFlags) => {
      const { runStatus } = await import('../actions/status.js');
      setExit(await runStatus(flags, output));
    });
}
