import type { Command } from 'commander';
import type { Output } from '../ui/output.js';

export interface InitFlags {
  readonly http?: boolean;
  readonly timer?: boolean;
  readonly db?: boolean;
  readonly dir?: string;
  readonly json?: boolean;
}

export function registerInitCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  program
    .command('init')
    .description('Scaffold a source, an action or an app in a new folder')
    .argument('<kind>', 'source, action or app')
    .argument('<name>', 'component name (the key is its slug), or the app slug')
    .option('--http', 'sources: add an HTTP endpoint prop')
    .option('--timer', 'sources: add a timer prop (every 15 minutes)')
    .option('--db', 'sources: add a db prop that counts runs')
    .option('--dir <DIR>', 'where to create the folder (default: the current directory)')
    .option('--json', 'print the created files as JSON')
    .addHelpText(
      'after',
      `
Creates <name-slug>/<name-slug>.mjs (for an app: <slug>/<slug>.app.mjs and an example action
under <slug>/actions/). Every file passes tributary validate and runs as is.

Examples:
  $ tributary init source "New Webhook" --http --db
  $ tributary init action send-greeting
  $ tributary init app acme
  $ tributary validate new-webhook/new-webhook.mjs && tributary dev new-webhook/new-webhook.mjs`,
    )
    .action(async (kind: string, name: string, flags: InitFlags) => {
      const { runInit } = await import('../actions/init.js');
      setExit(runInit(kind, name, flags, output));
    });
}
