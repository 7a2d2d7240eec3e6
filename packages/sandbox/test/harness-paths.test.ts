/**
 * Workers of a root host run as another uid: they read their harness from a copy in the cache
 * (the repository may sit in /root, mode 0700), and a cache they could not reach is refused at
 * start with one clear error instead of a "permission denied" from every worker.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAppError } from '@tributary/contracts';
import { Sandbox } from '@tributary/sandbox';
import { afterAll, describe, expect, it } from 'vitest';
import { assertReachableByOthers, installHarness, workerScriptPath } from '../src/host/harness-paths.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-harness-test-'));
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function refusal(run: () => unknown): { code: string; message: string; field: unknown } | null {
  try {
    run();
    return null;
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { code: error.code, message: error.message, field: error.details['field'] };
  }
}

describe('the worker harness', () => {
  it('is copied into the cache, once per content, where another uid can read it', () => {
    const cache = path.join(scratch, 'cache-a');
    mkdirSync(cache, { mode: 0o755 });
    const first = installHarness(cache, true);
    expect(path.dirname(path.dirname(first.script))).toBe(path.join(cache, 'harness'));
    expect(readFileSync(first.script)).toEqual(readFileSync(workerScriptPath()));
    expect(first.readDirs).toEqual([path.dirname(first.script)]);
    expect(statSync(path.dirname(first.script)).mode & 0o777).toBe(0o755);
    expect(statSync(first.script).mode & 0o444).toBe(0o444);
    expect(installHarness(cache, true)).toEqual(first);
  });

  it('is read where it was built when workers keep the host uid', () => {
    const harness = installHarness(path.join(scratch, 'unused'), false);
    expect(harness.script).toBe(workerScriptPath());
  });
});

describe('a cache workers cannot reach', () => {
  it('is refused naming the folder that does not let others through', () => {
    const closed = path.join(scratch, 'closed');
    mkdirSync(path.join(closed, 'inner', 'cache'), { recursive: true });
    chmodSync(closed, 0o700);
    expect(refusal(() => assertReachableByOthers(path.join(closed, 'inner', 'cache')))).toEqual({
      code: 'USAGE_ERROR',
      message: expect.stringContaining(`${closed} does not let others through`) as string,
      field: 'TRIBUTARY_CACHE_DIR',
    });
    chmodSync(closed, 0o755);
    expect(refusal(() => assertReachableByOthers(path.join(closed, 'inner', 'cache')))).toBeNull();
  });

  it.skipIf(!isRoot)('stops a root host from creating its sandbox', () => {
    const closed = path.join(scratch, 'closed-root');
    mkdirSync(closed, { mode: 0o700 });
    chmodSync(closed, 0o700);
    expect(refusal(() => new Sandbox({ cacheDir: path.join(closed, 'cache') }))?.code).toBe('USAGE_ERROR');
  });
});
