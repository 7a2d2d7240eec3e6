import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

export function registerLoginCommands(program: Command, output: Output, setExit: (code: number) => void): void {
  addRemoteOptions(
    program
      .command('login')
      .description(
        'Store the API key (and server URL) of a profile in the config file, after checking it with the server',
      ),
  )
    .addHelpText(
      'after',
      `
On a terminal the key is asked for without echo; in scripts pass --api-key or TRIBUTARY_API_KEY.
The config file is $XDG_CONFIG_HOME/tributary/config (else ~/.config/tributary/config), mode 0600.

Examples:
  $ tributary login --api-url http://127.0.0.1:8080
  $ tributary login -p staging --api-url https://tributary.example.com --api-key trb_...
  $ TRIBUTARY_API_KEY=trb_... tributary login`,
    )
    .action(async (flags: RemoteCommandFlags) => {
      const { runLogin } = await import('../actions/login.js');
      setExit(await runLogin(flags, output));
    });

  addRemoteOptions(program.command('logout').description("Remove a profile's API key from the config file"))
    .addHelpText(
      'after',
      `
Examples:
  $ tributary logout
  $ tributary logout -p staging`,
    )
    .action(async (flags: RemoteCommandFlags) => {
      const { runLogout } = await import('../actions/login.js');
      setExit(await runLogout(flags, output));
    });

  addRemoteOptions(program.command('whoami').description('Print the user of the API key and the server it talks to'))
    .addHelpText(
      'after',
      `
Examples:
  $ tributary whoami
  $ tributary whoami -p staging --json`,
    )
    .action(async (flags: RemoteCommandFlags) => {
      const { runWhoami } = await import('../actions/login.js');
      setExit(await runWhoami(flags, output));
    });
}
