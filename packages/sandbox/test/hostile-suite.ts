import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IsolationOptions, Placement } from '@tributary/sandbox';
import type { Sandbox } from '@tributary/sandbox';
import { FIXTURES, invoke, open, testSandbox } from './sandbox-harness.js';

/**
 * Every hostile fixture, each run beside a well-behaved component that must still succeed.
 * `auto` uses bubblewrap where it works; `process` is a machine without it. Without `placement`
 * the sandbox's default (shared workers) runs them.
 */
export function defineHostileSuite(mode: NonNullable<IsolationOptions['mode']>, placement?: Placement): void {
  let sandbox: Sandbox;
  let dispose: () => Promise<void>;
  const hostSecretDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-host-secret-'));
  const hostSecret = path.join(hostSecretDir, 'server.key');
  writeFileSync(hostSecret, 'host secret', { mode: 0o644 });

  beforeAll(() => {
    process.env['TRIBUTARY_TEST_SECRET'] = 'must-not-leak';
    // Without bubblewrap the egress policy cannot be enforced; this suite is about the other layers.
    const egress = mode === 'process' ? { egress: { mode: 'open' as const, allow: [] } } : {};
    ({ sandbox, dispose } = testSandbox({ isolation: { mode }, ...egress, ...(placement ? { placement } : {}) }));
  });
  afterAll(async () => {
    delete process.env['TRIBUTARY_TEST_SECRET'];
    await dispose();
  });

  /** Runs a hostile component while a well-behaved one runs beside it; the latter must succeed. */
  async function contained(file: string, options: Parameters<typeof invoke>[1] = {}) {
    const hostile = await open(sandbox, `hostile/${file}`);
    const neighbour = await open(sandbox, 'hostile/well-behaved.mjs', `neighbour-of-${file}`);
    const [result, fine] = await Promise.all([invoke(hostile, options), invoke(neighbour)]);
    expect(fine.ok).toBe(true);
    expect(fine.emits.map((emit) => emit.metadata.summary)).toEqual(['fine 1']);
    return { result, hostile };
  }

  describe(`hostile components are contained (${mode} isolation${placement ? `, ${placement} workers` : ''})`, () => {
    it('an infinite loop ends as TIMEOUT and its worker is replaced', async () => {
      const { result, hostile } = await contained('infinite-loop.mjs');
      expect(result.error?.code).toBe('TIMEOUT');
      expect(result.logs.map((entry) => entry.message)).toContain('about to spin');
      const again = await invoke(hostile, { timeoutMs: 800 });
      expect(again.error?.code).toBe('TIMEOUT');
    });

    it('a heap bomb ends as OUT_OF_MEMORY', async () => {
      const { result } = await contained('heap-bomb.mjs', { timeoutMs: 20_000 });
      expect(result.error?.code).toBe('OUT_OF_MEMORY');
    });

    it('a Buffer bomb (memory outside the JS heap) ends as OUT_OF_MEMORY', async () => {
      const { result } = await contained('buffer-bomb.mjs', { timeoutMs: 20_000 });
      expect(result.error?.code).toBe('OUT_OF_MEMORY');
    });

    it('process.exit() ends as CRASHED, keeping the log lines before it', async () => {
      const { result } = await contained('process-exit.mjs');
      expect(result.error?.code).toBe('CRASHED');
      expect(result.error?.message).toContain('exit code 3');
      expect(result.logs[0]?.message).toBe('leaving');
    });

    it('child_process is refused', async () => {
      const { result } = await contained('child-process.mjs');
      expect(result.error?.code).toBe('COMPONENT_ERROR');
      expect(result.error?.message).toMatch(/restricted|ERR_ACCESS_DENIED|permission/i);
    });

    it("/etc/shadow, host files and another component's code cannot be read", async () => {
      const other = await sandbox.prepare(path.join(FIXTURES, 'cli', 'hello.mjs'));
      for (const target of ['/etc/shadow', hostSecret, other.bundlePath]) {
        const { result } = await contained('read-file.mjs', { configured: { path: target } });
        expect(result.error?.code, target).toBe('COMPONENT_ERROR');
        expect(result.error?.message, target).toMatch(/restricted|ENOENT|EACCES|ERR_ACCESS_DENIED|permission/i);
      }
    });

    it('writes outside the scratch directory fail', async () => {
      const outside = path.join(hostSecretDir, 'planted.txt');
      const { result } = await contained('write-file.mjs', { configured: { path: outside } });
      expect(result.error?.code).toBe('COMPONENT_ERROR');
      expect(existsSync(outside)).toBe(false);
      expect(readFileSync(hostSecret, 'utf8')).toBe('host secret');
    });

    it('the temporary directory is writable and private: /tmp with bubblewrap, a scratch TMPDIR without', async () => {
      const { result } = await contained('write-tmpdir.mjs');
      expect(result.error).toBeNull();
      const { file, content } = result.returnValue as { file: string; content: string };
      expect(content).toBe('scratch data');
      if (sandbox.isolation.bwrapPath) {
        expect(file).toBe('/tmp/download.bin');
        expect(existsSync(file)).toBe(false);
        const marker = `/tmp/tributary-component-${process.pid}.txt`;
        const direct = await contained('write-file.mjs', { configured: { path: marker } });
        expect(direct.result.returnValue).toBe('written by a component');
        expect(existsSync(marker)).toBe(false);
      } else {
        // Without a mount namespace the scratch folder is on the host, but it is the worker's own.
        expect(path.dirname(file)).not.toBe(os.tmpdir());
        expect(path.basename(path.dirname(path.dirname(file)))).toBe('scratch');
      }
    });

    it('process.env holds nothing of the host', async () => {
      const { result } = await contained('read-env.mjs');
      expect(result.ok).toBe(true);
      const env = result.returnValue as Record<string, string>;
      expect(env['TRIBUTARY_TEST_SECRET']).toBeUndefined();
      expect(env['PATH']).toBeUndefined();
      expect(Object.keys(env).sort()).toEqual(expect.arrayContaining(['HOME', 'NODE_ENV', 'TMPDIR']));
      expect(Object.keys(env).every((name) => ['HOME', 'NODE_ENV', 'TMPDIR', 'PWD'].includes(name))).toBe(true);
    });

    it('an unhandled rejection fails the invocation with its message', async () => {
      const { result } = await contained('unhandled-rejection.mjs');
      expect(result.error?.code).toBe('COMPONENT_ERROR');
      expect(result.error?.message).toContain('nobody catches me');
    });

    it('a timer left running after run returns never leaks into the next invocation', async () => {
      const handle = await open(sandbox, 'hostile/timer-left-running.mjs');
      const first = await invoke(handle);
      expect(first.ok).toBe(true);
      expect(first.emits.map((emit) => emit.event)).toEqual([{ round: 1 }]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = await invoke(handle, { state: first.state });
      expect(second.ok).toBe(true);
      expect(second.emits.map((emit) => emit.event)).toEqual([{ round: 2 }]);
      expect(second.logs.filter((entry) => entry.message.includes('round 1'))).toEqual([]);
    });

    it('100 MB of logs ends as PAYLOAD_TOO_LARGE without holding them', async () => {
      const { result } = await contained('log-flood.mjs', { timeoutMs: 10_000 });
      expect(result.error?.code).toBe('PAYLOAD_TOO_LARGE');
      const bytes = result.logs.reduce((total, entry) => total + entry.message.length, 0);
      expect(bytes).toBeLessThan(7 * 1024 * 1024);
    });

    it('a huge emit ends as PAYLOAD_TOO_LARGE and keeps the emits before it', async () => {
      const { result } = await contained('huge-emit.mjs');
      expect(result.error?.code).toBe('PAYLOAD_TOO_LARGE');
      expect(result.emits.map((emit) => emit.event)).toEqual([{ ok: true }]);
    });

    it('a never-settling promise ends as TIMEOUT with the emits made before it', async () => {
      const { result } = await contained('never-settles.mjs');
      expect(result.error?.code).toBe('TIMEOUT');
      expect(result.emits.map((emit) => emit.event)).toEqual([{ before: true }]);
    });

    it('blocking the event loop in activate ends as TIMEOUT, keeping its db write', async () => {
      const { result } = await contained('blocks-activate.mjs', { kind: 'activate' });
      expect(result.error?.code).toBe('TIMEOUT');
      expect(result.state.db).toEqual({ activating: true });
    });
  });
}
