import { describe, expect, it } from 'vitest';
import { tributary } from './cli-process.js';

const COMMANDS = [
  ['login'],
  ['logout'],
  ['whoami'],
  ['deploy'],
  ['publish'],
  ['unpublish'],
  ['list'],
  ['describe'],
  ['events'],
  ['logs'],
  ['update'],
  ['delete'],
  ['run-now'],
  ['accounts'],
  ['accounts', 'create'],
  ['accounts', 'list'],
  ['accounts', 'delete'],
  ['dead-letters'],
  ['dead-letters', 'list'],
  ['dead-letters', 'retry'],
  ['dead-letters', 'delete'],
  ['registry'],
  ['registry', 'add'],
  ['registry', 'list'],
  ['registry', 'remove'],
  ['registry', 'outdated'],
  ['registry', 'upgrade'],
  ['status'],
  ['workflow'],
  ['workflow', 'run'],
  ['workflow', 'deploy'],
  ['workflow', 'list'],
  ['workflow', 'describe'],
  ['workflow', 'run-now'],
  ['workflow', 'runs'],
  ['workflow', 'logs'],
  ['workflow', 'delete'],
  ['init'],
  ['run'],
  ['dev'],
  ['options'],
];

describe('--help', () => {
  it.concurrent.each(COMMANDS.map((command) => [command.join(' '), command] as const))(
    '%s --help shows examples and exits 0',
    async (_name, command) => {
      const help = await tributary([...command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).toContain(`$ tributary ${command.join(' ')}`);
    },
  );

  it('every remote command takes the profile, API URL, API key and JSON flags', async () => {
    for (const command of [['deploy'], ['events'], ['accounts', 'create'], ['list']]) {
      const help = (await tributary([...command, '--help'])).stdout;
      for (const flag of ['-p, --profile <NAME>', '--api-url <URL>', '--api-key <KEY>', '--json'])
        expect(help, command.join(' ')).toContain(flag);
    }
  });

  it('a usage error exits 1 on the workflow commands that talk to a server, 2 on the local workflow run', async () => {
    expect((await tributary(['workflow', 'describe'])).code).toBe(1);
    expect((await tributary(['workflow', 'run'])).code).toBe(2);
  });
});
