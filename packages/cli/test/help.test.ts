import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createOutput, runCli } from '../src/index.js';
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
  ['keys'],
  ['keys', 'rotate'],
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

function collector(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * The command tree run in this process, as bin/tributary.js runs it: help text and exit codes come
 * from commander and runCli, so one Node start per command (~3 s each on CI) would test nothing more.
 * The real binary is still checked below, for help and for usage errors.
 */
async function tributaryInProcess(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = collector();
  const stderr = collector();
  const output = createOutput({ stdout: stdout.stream, stderr: stderr.stream, color: false });
  const code = await runCli([process.execPath, 'tributary', ...args], output);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('--help', () => {
  it.each(COMMANDS.map((command) => [command.join(' '), command] as const))(
    '%s --help shows examples and exits 0',
    async (_name, command) => {
      const help = await tributaryInProcess([...command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).toContain(`$ tributary ${command.join(' ')}`);
    },
  );

  it('the real binary prints a subcommand help with examples and exits 0', async () => {
    const help = await tributary(['workflow', 'run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('$ tributary workflow run');
  });

  it('every remote command takes the profile, API URL, API key and JSON flags', async () => {
    for (const command of [['deploy'], ['events'], ['accounts', 'create'], ['list']]) {
      const help = (await tributaryInProcess([...command, '--help'])).stdout;
      for (const flag of ['-p, --profile <NAME>', '--api-url <URL>', '--api-key <KEY>', '--json'])
        expect(help, command.join(' ')).toContain(flag);
    }
  });

  it('a usage error exits 1 on the workflow commands that talk to a server, 2 on the local workflow run', async () => {
    // Real processes: the exit code has to reach the shell, not only runCli's return value.
    const [remote, local] = await Promise.all([tributary(['workflow', 'describe']), tributary(['workflow', 'run'])]);
    expect(remote.code).toBe(1);
    expect(local.code).toBe(2);
  });
});
