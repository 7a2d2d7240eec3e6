/**
 * What a `tributary` process loads before it does anything: the command tree only. Each command's
 * implementation (the server, the engine, the sandbox and esbuild behind `start`, `run` or `dev`)
 * is imported when that command runs (docs/cli.md#startup). Every test spawns the real binary
 * with a module hook (test/load-recorder) that writes down each ES module the process loads, so
 * these check which modules were loaded, not how long it took.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MASTER_KEY_FILE_VARIABLE, MASTER_KEY_VARIABLE } from '@tributary/engine';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO, type CliResult } from './cli-process.js';

const RECORDER = path.join(REPO, 'packages/cli/test/load-recorder/register.mjs');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What only some commands need: a light command loading any of these has regressed. */
const HEAVY: readonly { readonly name: string; readonly path: RegExp }[] = [
  { name: '@tributary/engine', path: /\/packages\/engine\// },
  { name: '@tributary/server', path: /\/packages\/server\// },
  { name: '@tributary/sandbox', path: /\/packages\/sandbox\// },
  { name: '@tributary/runtime', path: /\/packages\/runtime\// },
  { name: 'esbuild', path: /\/node_modules\/esbuild\// },
  { name: 'fastify', path: /\/node_modules\/fastify\// },
  { name: 'kysely', path: /\/node_modules\/kysely\// },
  { name: 'pino', path: /\/node_modules\/pino\// },
  { name: '@inquirer/prompts', path: /\/node_modules\/@inquirer\// },
  // The API schemas: a command that gets no refusal from a server never parses one.
  { name: 'zod', path: /\/node_modules\/zod\// },
];

let runs = 0;

/** Runs the binary with the load recorder; `loaded` lists the URL of every ES module it loaded. */
function recorded(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliResult & { readonly loaded: readonly string[] }> {
  const record = path.join(scratch, `loaded-${++runs}.txt`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', RECORDER, BIN, ...args],
      { cwd: scratch, timeout: 120_000, env: { ...process.env, ...env, TRIBUTARY_LOAD_RECORD: record } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const loaded = readFileSync(record, 'utf8').split('\n').filter(Boolean);
        resolve({ code, stdout, stderr, loaded });
      },
    );
  });
}

function heavyLoaded(loaded: readonly string[]): string[] {
  return HEAVY.filter((heavy) => loaded.some((url) => heavy.path.test(url))).map((heavy) => heavy.name);
}

/** A loopback port nothing listens on: a server that is not running. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('startup: what a process loads before its command runs', () => {
  it.each(
    [['--help'], ['--version'], ['list', '--help'], ['start', '--help'], ['workflow', 'run', '--help']].map(
      (args) => [args.join(' '), args] as const,
    ),
  )('tributary %s loads the command tree only', async (_name, args) => {
    const result = await recorded(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toBe('');
    // The recorder saw the process: the binary, the tree and commander.
    expect(result.loaded.some((url) => url.endsWith('/packages/cli/dist/program.js'))).toBe(true);
    expect(result.loaded.some((url) => url.includes('/node_modules/commander/'))).toBe(true);
    expect(heavyLoaded(result.loaded)).toEqual([]);
    // No implementation of any command, only their declarations.
    expect(result.loaded.filter((url) => url.includes('/packages/cli/dist/actions/'))).toEqual([]);
  });

  it('a usage error is reported from the tree alone', async () => {
    const result = await recorded(['run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'file'");
    expect(heavyLoaded(result.loaded)).toEqual([]);
  });

  it('a remote command loads the API client, not the server, the engine or the sandbox', async () => {
    const port = await closedPort();
    const result = await recorded(['list', 'sources'], {
      TRIBUTARY_API_URL: `http://127.0.0.1:${port}`,
      TRIBUTARY_API_KEY: 'trb_startup_test_key',
      XDG_CONFIG_HOME: scratch,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SERVER_UNREACHABLE');
    expect(result.loaded.some((url) => url.includes('/packages/api-client/'))).toBe(true);
    expect(result.loaded.some((url) => url.endsWith('/packages/cli/dist/actions/list.js'))).toBe(true);
    expect(heavyLoaded(result.loaded)).toEqual([]);
  });

  it('a local run loads the sandbox when it runs, and of the engine only its run report', async () => {
    const result = await recorded(['run', path.join(scratch, 'no-such-component.mjs'), '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { code: 'FILE_NOT_FOUND' } });
    // The recorder sees heavy modules when a command does load them.
    expect(heavyLoaded(result.loaded)).toEqual(
      expect.arrayContaining(['@tributary/sandbox', '@tributary/runtime', 'esbuild']),
    );
    expect(result.loaded.some((url) => url.endsWith('/packages/engine/dist/local-run.js'))).toBe(true);
    // Not the engine's main entry (storage, queues, delivery) nor the server.
    expect(result.loaded.filter((url) => url.endsWith('/packages/engine/dist/index.js'))).toEqual([]);
    expect(heavyLoaded(result.loaded)).not.toContain('@tributary/server');
  });

  it("keys rotate --help names the engine's master key variables, written out so help loads no engine", async () => {
    const result = await recorded(['keys', 'rotate', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`keys of ${MASTER_KEY_FILE_VARIABLE}, ${MASTER_KEY_VARIABLE} or`);
    expect(result.stdout).toContain(`With ${MASTER_KEY_VARIABLE}, give the new key first`);
    expect(heavyLoaded(result.loaded)).toEqual([]);
  });
});
