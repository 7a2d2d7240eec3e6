import { Command, CommanderError } from 'commander';
import { registerDevCommand } from './commands/dev.js';
import { registerOptionsCommand } from './commands/options.js';
import { registerRunCommand } from './commands/run.js';
import { registerStartCommand } from './commands/start.js';
import { registerValidateCommand } from './commands/validate.js';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import type { Output } from './ui/output.js';
import { VERSION } from './version.js';

/** Builds the `tributary` command tree; `setExit` receives each command's exit code. */
export function createProgram(output: Output, setExit: (code: number) => void): Command {
  const program = new Command('tributary')
    .description('Run Pipedream-style components (sources and actions) on your own machine.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (text) => output.out(text.trimEnd()),
      writeErr: (text) => output.err(text.trimEnd()),
    })
    .exitOverride();
  registerStartCommand(program, output, setExit);
  registerRunCommand(program, output, setExit);
  registerDevCommand(program, output, setExit);
  registerValidateCommand(program, output, setExit);
  registerOptionsCommand(program, output, setExit);
  for (const command of program.commands) command.exitOverride();
  program.addHelpText(
    'after',
    `
Examples:
  $ tributary start
  $ tributary run hello.mjs --prop name=World --json
  $ tributary dev my-source.mjs
  $ tributary validate my-source.mjs
  $ tributary options my-action.mjs fruit --page 1

Docs: docs/cli.md`,
  );
  return program;
}

/** Runs the CLI with `argv` (as process.argv) and returns the exit code instead of exiting. */
export async function runCli(argv: readonly string[], output: Output): Promise<number> {
  let exitCode = EXIT_OK;
  const program = createProgram(output, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT_OK;
      return EXIT_USAGE;
    }
    throw error;
  }
}
