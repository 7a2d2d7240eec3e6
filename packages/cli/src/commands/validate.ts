import type { Command } from 'commander';
import type { Output } from '../ui/output.js';

export interface ValidateCommandOptions {
  readonly publish?: boolean;
  readonly json?: boolean;
}

export function registerValidateCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  program
    .command('validate')
    .description('Check a component against every rule (C1–C17, P1–P13) and print errors and warnings')
    .argument('<file>', 'component file')
    .option('--publish', 'apply the registry rules too (version required and semver)')
    .option('--json', 'print the report as one JSON object')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary validate my-source.mjs
  $ tributary validate my-action.mjs --publish --json

Exit codes: 0 no errors (warnings allowed), 2 errors or the file does not load.`,
    )
    .action(async (file: string, options: ValidateCommandOptions) => {
      const { runValidate } = await import('../actions/validate.js');
      setExit(await runValidate(file, options, output));
    });
}
