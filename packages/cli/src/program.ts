import { isAppError } from '@tributary/contracts/errors';
import { Command, CommanderError } from 'commander';
import { registerDevCommand } from './commands/dev.js';
import { registerOptionsCommand } from './commands/options.js';
import { registerRunCommand } from './commands/run.js';
import { registerStartCommand } from './commands/start.js';
import { registerValidateCommand } from './commands/validate.js';
import { registerAccountsCommand } from './commands/accounts.js';
import { registerDeadLettersCommand } from './commands/dead-letters.js';
import { registerRegistryCommand } from './commands/registry.js';
import { registerStatusCommand } from './commands/status.js';
import { registerSubscriptionsCommand } from './commands/subscriptions.js';
import { registerDeployCommand } from './commands/deploy.js';
import { registerInitCommand } from './commands/init.js';
import { registerKeysCommand } from './commands/keys.js';
import { registerListCommand } from './commands/list.js';
import { registerLoginCommands } from './commands/login.js';
import { registerPublishCommands } from './commands/publish.js';
import { registerSourceCommands } from './commands/sources.js';
import { registerWorkflowCommands } from './commands/workflow.js';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { REMOTE_EXIT_REFUSED } from './remote/remote-exit.js';
import type { Output } from './ui/output.js';
import { reportFailure } from './ui/report-error.js';
import { VERSION } from './version.js';

/**
 * Builds the `tributary` command tree; `setExit` receives each command's exit code.
 *
 * commands/ declares each command (name, arguments, options, help) and loads its implementation
 * from actions/ with import() only when it runs: every process pays for the tree, and only `start`
 * pays for the server, `run` for the sandbox, a remote command for the API client
 * (docs/cli.md#startup; test/startup-imports.test.ts keeps it so).
 */
export function createProgram(output: Output, setExit: (code: number) => void): Command {
  const program = new Command('tributary')
    .description(
      'Run Pipedream-style components (sources and actions) on your own machine, or deploy them to a Tributary server.',
    )
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
  registerLoginCommands(program, output, setExit);
  registerDeployCommand(program, output, setExit);
  registerPublishCommands(program, output, setExit);
  registerListCommand(program, output, setExit);
  registerSourceCommands(program, output, setExit);
  registerAccountsCommand(program, output, setExit);
  registerDeadLettersCommand(program, output, setExit);
  registerRegistryCommand(program, output, setExit);
  registerStatusCommand(program, output, setExit);
  registerWorkflowCommands(program, output, setExit);
  registerSubscriptionsCommand(program, output, setExit);
  registerInitCommand(program, output, setExit);
  registerKeysCommand(program, output, setExit);
  const exitOverride = (command: Command): void => {
    command.exitOverride();
    for (const child of command.commands) exitOverride(child);
  };
  exitOverride(program);
  program.addHelpText(
    'after',
    `
Examples:
  $ tributary start
  $ tributary run hello.mjs --prop name=World --json
  $ tributary dev my-source.mjs
  $ tributary validate my-source.mjs
  $ tributary options my-action.mjs fruit --page 1
  $ tributary login --api-url http://127.0.0.1:8080
  $ tributary deploy my-source.mjs
  $ tributary list sources
  $ tributary events my-source -n 5
  $ tributary workflow run signup.workflow.json --event '{"body":{"email":"ada@example.com"}}'

Docs: docs/cli.md`,
  );
  return program;
}

const REMOTE_COMMANDS = new Set([
  'login',
  'logout',
  'whoami',
  'deploy',
  'publish',
  'unpublish',
  'list',
  'ls',
  'describe',
  'events',
  'logs',
  'update',
  'delete',
  'run-now',
  'accounts',
  'dead-letters',
  'status',
]);

/**
 * Usage errors exit 1 on commands that talk to a server and 2 on the local ones
 * (docs/decisions/0004-cli-exit-codes.md); commander reports them before any action runs.
 */
function isRemoteInvocation(args: readonly string[]): boolean {
  const command = args.find((arg) => !arg.startsWith('-'));
  if (command === undefined) return false;
  if (REMOTE_COMMANDS.has(command)) return true;
  if (command === 'run' || command === 'options') return args.includes('--remote');
  // A workflow runs locally with `workflow run`; its other subcommands talk to a server.
  if (command === 'workflow') return args.filter((arg) => !arg.startsWith('-'))[1] !== 'run';
  if (command === 'dev') return args.some((arg) => arg === '--dc' || arg.startsWith('--dc='));
  return false;
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
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        return EXIT_OK;
      return isRemoteInvocation(argv.slice(2)) ? REMOTE_EXIT_REFUSED : EXIT_USAGE;
    }
    // A local command that fails before its own error handling starts (its sandbox refused the
    // cache folder, say) still ends with one line and its exit code, not a stack trace.
    if (isAppError(error)) return reportFailure(output, error, { json: argv.includes('--json') });
    throw error;
  }
}
