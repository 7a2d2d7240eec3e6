/**
 * The server process's policy for errors nothing caught (docs/decisions/0013-runs-that-hang.md),
 * in real child processes running the built module with the server's pino log: an unhandled
 * rejection is logged and the process keeps running; an uncaught exception is logged and the
 * process exits with code 1.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from './cli-process.js';

const policy = pathToFileURL(path.join(REPO, 'packages/cli/dist/start/process-failures.js')).href;
const logger = pathToFileURL(path.join(REPO, 'packages/cli/dist/start/server-logger.js')).href;

function runScript(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `
    import { installProcessFailurePolicy } from ${JSON.stringify(policy)};
    import { createServerLogger } from ${JSON.stringify(logger)};
    installProcessFailurePolicy(createServerLogger('info', 'json'));
    ${body}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

function logLines(stderr: string): { level: number; msg: string; unhandled?: string }[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; unhandled?: string });
}

describe('unhandled errors in the server process', () => {
  it('an unhandled rejection is logged at error and the process keeps running', async () => {
    const result = await runScript(`
      Promise.reject(new Error('lost database connection in a tick'));
      setTimeout(() => console.log('still running'), 100);
    `);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('still running');
    const [line] = logLines(result.stderr);
    expect(line).toMatchObject({ level: 50, unhandled: 'rejection' });
    expect(line?.msg).toMatch(
      /^a promise was rejected and nothing handled it \(the server keeps running\): Error: lost database connection in a tick/,
    );
  });

  it('an uncaught exception is logged and the process exits with code 1', async () => {
    const result = await runScript(`
      setTimeout(() => { throw new Error('broken invariant'); }, 10);
      setTimeout(() => console.log('should not print'), 500);
    `);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('should not print');
    const [line] = logLines(result.stderr);
    expect(line).toMatchObject({ level: 50, unhandled: 'uncaughtException' });
    expect(line?.msg).toMatch(/^an exception was not caught; the process exits.*: Error: broken invariant/);
  });
});
